import type { CallToolResult } from '@modelcontextprotocol/client';
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
  /** The lifecycle phase: idle, starting, discovering, running, sleeping, dormant, restarting, failed, stopping, stopped. */
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
  /** The person the call is made for (from the client's OAuth token), when the satellite knows: a remote
   *  server behind OAuth gets that person's token. */
  userId?: string | null;
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

/** One installation as the runtime runs it, stdio or remote (its supervisor): the gateway needs nothing else. */
export type ManagedServer = {
  readonly config: ServerConfiguration;
  readonly serverName: string;
  /** Starts in the background (again: nothing); settles once the first attempt has (online, failed, or stopped meanwhile). */
  start(): Promise<void>;
  stop(): Promise<void>;
  status(): InstallationStatus;
  /** The upstream result untouched (every content item, structuredContent, isError, _meta). */
  callTool(name: string, args: Record<string, unknown>, options?: ToolCallOptions): Promise<CallToolResult>;
  /**
   * Why the server is not online, in words an agent and an operator can act on ("failed to start:
   * spawn ... ENOENT", "permanently failed after 3 restarts: ...", "restarting (attempt 1 of 3) after:
   * ..."), or null when it is online.
   */
  unavailableReason(): string | null;
  /** Puts an idle server to sleep; true when it does. */
  checkIdle(): boolean;
  /** Checks the live connection; false (and the connection counted lost) when it does not answer. */
  checkHealth(timeoutMs: number): Promise<boolean>;
  /** Connects now when it can; true when the server is there. */
  recover(): Promise<boolean>;
  snapshot(): ServerSnapshot;
};
