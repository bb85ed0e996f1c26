import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { InstallationStatus, McpTransport, ProcessHealth, ServerConfiguration } from '@orbital/contracts';
import type { ResponseStatsSnapshot } from './createResponseStats.ts';
import type { ProcessUsage } from './readProcessUsage.ts';

export type ServerSnapshot = {
  installation_id: string;
  server_name: string;
  server_slug: string;
  team_id: string;
  transport: McpTransport;
  status: InstallationStatus;
  /** The process state machine of the spec, or the connection state of a remote server. */
  state: string;
  health: ProcessHealth;
  process_id: number | null;
  tool_count: number;
  crash_count: number;
  uptime_seconds: number | null;
  usage: ProcessUsage | null;
  requests: ResponseStatsSnapshot;
};

/** One installation as the runtime runs it, stdio or remote: the gateway needs nothing else. */
export type ManagedServer = {
  readonly config: ServerConfiguration;
  readonly serverName: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  status(): InstallationStatus;
  tools(): readonly Tool[];
  callTool(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  snapshot(): ServerSnapshot;
};

export type ServerListener = {
  /** The server's tool list or status changed: the tool cache rebuilds its entry. */
  onChange(server: ManagedServer): void;
};
