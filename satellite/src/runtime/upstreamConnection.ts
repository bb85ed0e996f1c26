import type { CallToolResult, Tool } from '@modelcontextprotocol/client';
import type { McpTransport } from '@orbital/contracts';
import type { Failure } from './lifecycle/lifecycleState.ts';
import type { ToolCallOptions } from './managedServer.ts';
import type { ProcessUsage } from './readProcessUsage.ts';

/**
 * One open connection to an upstream MCP server: a process over stdio, or a session over Streamable
 * HTTP or SSE. The supervisor holds at most one per installation and knows nothing else about how it
 * is made; starting, restarting, back-off and idleness are decided once, in the lifecycle, for both.
 */
export type UpstreamConnection = {
  /** The process for stdio, 0 for a remote server. */
  readonly pid: number;
  /** The revision spoken: 2026-07-28, or the 2025 revision negotiated. */
  protocolVersion(): string | undefined;
  /** `tools/list`; `signal` abandons it (a scheduled re-list that took too long). */
  listTools(signal?: AbortSignal): Promise<Tool[]>;
  /** Calls `onChange` when the server says its tools changed (a notification, or a 2026-07-28 listen stream). */
  watchTools(onChange: () => void): Promise<void>;
  /**
   * One tool call under the satellite's time limits, with the caller's progress, cancellation and
   * input relayed. The options reach the connection untouched, so whatever a transport needs per call
   * travels with them.
   */
  callTool(name: string, args: Record<string, unknown>, options: ToolCallOptions): Promise<CallToolResult>;
  /** A liveness check (`ping`, or `server/discover` on 2026-07-28); rejects when the server does not answer. */
  checkAlive(timeoutMs: number): Promise<void>;
  /** True when a failed call provably never reached the server, so it may be sent again on a fresh connection. */
  neverDelivered(error: unknown): boolean;
  /** `listener` hears once that the connection ended on its own (never after `close`). */
  onLost(listener: (failure: Failure) => void): void;
  /** Ends it on purpose: SIGTERM then SIGKILL for a process group, the session's end for HTTP. */
  close(): Promise<void>;
  /** Calls in flight on it. */
  inFlight(): number;
  /** CPU and memory of the process, null for a remote server. */
  usage(): ProcessUsage | null;
};

/** Opens connections to one installation, each from scratch (a spawn, or a connect and handshake). */
export type UpstreamConnector = {
  readonly transport: McpTransport;
  /**
   * A connection with its handshake done, or a `ConnectFailure` saying why not. `signal` abandons the
   * attempt (the satellite is stopping): what it had started is ended.
   */
  open(signal: AbortSignal): Promise<UpstreamConnection>;
  /** The installation is gone: release what outlives single connections (log batching). */
  dispose(): void;
};

/** A connection attempt that failed, with what an operator needs to fix it. */
export class ConnectFailure extends Error {
  readonly failure: Failure;
  constructor(failure: Failure, options?: { cause?: unknown }) {
    super(failure.message, options);
    this.name = 'ConnectFailure';
    this.failure = failure;
  }
}
