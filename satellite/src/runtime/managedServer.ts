import type { CallToolResult, Tool } from '@modelcontextprotocol/client';
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
  /** The life-cycle state of a stdio process, or the connection state of a remote server. */
  state: string;
  health: ProcessHealth;
  process_id: number | null;
  tool_count: number;
  crash_count: number;
  uptime_seconds: number | null;
  usage: ProcessUsage | null;
  requests: ResponseStatsSnapshot;
  /** The revision the current connection speaks (2026-07-28, or the 2025 revision negotiated); null unconnected. */
  protocol_version: string | null;
  /** Why the server is not online (see `unavailableReason`), null when it is. */
  status_reason: string | null;
};

export type ToolCallOptions = {
  /** Aborted when the client cancels or goes away: the upstream request is cancelled (notifications/cancelled upstream). */
  signal?: AbortSignal;
  /** Set when the client asked for progress: a progress token is sent upstream and each upstream notifications/progress is handed here. */
  onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
  /** Requests the upstream server makes during this call (elicitation/create, sampling/createMessage, roots/list).
   *  Resolves with the client's result, or rejects with an McpError-like {code, message} the runtime returns upstream.
   *  Absent: the runtime refuses such requests with a clear error ("the client that made this call did not declare <capability>"). */
  onServerRequest?: (request: {
    method: string;
    params: Record<string, unknown> | undefined;
  }) => Promise<Record<string, unknown>>;
};

/** One installation as the runtime runs it, stdio or remote: the gateway needs nothing else. */
export type ManagedServer = {
  readonly config: ServerConfiguration;
  readonly serverName: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  status(): InstallationStatus;
  tools(): readonly Tool[];
  /** The upstream result untouched (every content item, structuredContent, isError, _meta). */
  callTool(name: string, args: Record<string, unknown>, options?: ToolCallOptions): Promise<CallToolResult>;
  /**
   * Why the server is not online, in words an agent and an operator can act on ("failed to start:
   * spawn ... ENOENT", "permanently failed after 3 restarts: ...", "restarting after a crash: ..."),
   * or null when it is online.
   */
  unavailableReason(): string | null;
  snapshot(): ServerSnapshot;
};

export type ServerListener = {
  /** The server's tool list or status changed: the tool cache rebuilds its entry. */
  onChange(server: ManagedServer): void;
};
