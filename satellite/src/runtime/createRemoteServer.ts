import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport, SseError } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type CallToolResult, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { ServerConfiguration } from '@orbital/contracts';
import { AppError } from '@orbital/errors';
import type { Logger } from '@orbital/logger';
import type { EventSink } from '../events/eventSink.ts';
import { createResponseStats } from './createResponseStats.ts';
import { createServerState } from './createServerState.ts';
import { isConnectionRefused } from './isConnectionRefused.ts';
import type { ManagedServer, ToolCallOptions } from './managedServer.ts';

export type RemoteServerOptions = {
  config: ServerConfiguration;
  serverName: string;
  events: EventSink;
  logger: Logger;
  onChange: () => void;
  handshakeTimeoutMs: number;
  requestTimeoutMs: number;
  /** First reconnection delay; doubles per failed attempt up to `reconnectMaxMs`. */
  reconnectBaseMs: number;
  reconnectMaxMs: number;
};

type Connection = { client: Client; transport: Transport };

/**
 * One remote installation over Streamable HTTP or SSE, with the headers of its configuration. A lost
 * server goes `offline` and is reconnected in the background with backoff. Connecting is retried;
 * a tool call is retried only when the error proves it never reached the server.
 */
export function createRemoteServer(options: RemoteServerOptions): ManagedServer & {
  checkHealth(): Promise<boolean>;
  connected(): boolean;
} {
  const { config, logger } = options;
  const state = createServerState({ config, events: options.events, onChange: options.onChange });
  const stats = createResponseStats();
  const log = logger.child({ installation_id: config.installation_id, server: options.serverName });
  let connection: Connection | undefined;
  let connecting: Promise<Connection> | undefined;
  let reconnectTimer: NodeJS.Timeout | undefined;
  let reconnectAttempt = 0;
  let connectedAt: number | undefined;
  let closed = false;
  /** Why the server went offline last, for callers told it is not online. */
  let lastError = '';

  const headers = config.headers;
  const fetchWithHeaders = (url: string | URL, init?: RequestInit) => {
    const merged = new Headers(init?.headers);
    for (const [name, value] of Object.entries(headers)) merged.set(name, value);
    return fetch(url, { ...init, headers: merged });
  };

  const makeTransport = (): Transport => {
    const url = new URL(config.url ?? '');
    if (config.transport === 'sse') return new SSEClientTransport(url, { fetch: fetchWithHeaders });
    // The SDK's own stream reconnection is off: a lost server is this module's business.
    return new StreamableHTTPClientTransport(url, {
      fetch: fetchWithHeaders,
      reconnectionOptions: {
        maxReconnectionDelay: 1000,
        initialReconnectionDelay: 1000,
        reconnectionDelayGrowFactor: 1,
        maxRetries: 0,
      },
    });
  };

  /** One connection attempt (handshake included); concurrent callers share it. */
  const connectOnce = (): Promise<Connection> => {
    if (connection) return Promise.resolve(connection);
    connecting ??= (async () => {
      const client = new Client({ name: 'orbital-satellite', version: '0.1.0' }, { capabilities: {} });
      const transport = makeTransport();
      try {
        await client.connect(transport, { timeout: options.handshakeTimeoutMs });
      } catch (error) {
        await client.close().catch(() => {});
        throw error;
      }
      const next = { client, transport };
      client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
        if (connection === next) await state.discover(client).catch((e) => log.warn({ err: e }, 'rediscovery failed'));
      });
      client.onclose = () => {
        if (connection === next) lose(new Error('connection closed'));
      };
      // An SSE stream that ends is only reported as an error: the SDK's transport neither closes nor
      // fails the requests waiting for answers on it, and its EventSource would quietly open a new,
      // uninitialised session. Treat it as the lost connection it is: close (pending calls fail at
      // once, without a retry) and reconnect with a fresh handshake.
      client.onerror = (error) => {
        if (connection === next && error instanceof SseError) lose(error);
      };
      if (closed) {
        await client.close().catch(() => {});
        throw new AppError('unavailable', 'the satellite is shutting down');
      }
      connection = next;
      connectedAt = Date.now();
      reconnectAttempt = 0;
      return next;
    })().finally(() => {
      connecting = undefined;
    });
    return connecting;
  };

  /** Connected: discover tools, then online (status changes on the way, as the spec's table has them). */
  const becomeOnline = async (conn: Connection, reason: 'process' | 'recovery') => {
    state.setStatus('discovering_tools', reason);
    await state.discover(conn.client);
    state.setStatus('online', reason);
  };

  const lose = (error: unknown) => {
    const lost = connection;
    connection = undefined;
    connectedAt = undefined;
    if (lost) void lost.client.close().catch(() => {});
    if (closed) return;
    lastError = `${lost ? 'connection lost' : 'not reachable'}: ${(error as Error).message ?? String(error)}`;
    state.setStatus('offline', 'process', lastError);
    scheduleReconnect();
  };

  const scheduleReconnect = () => {
    if (closed || reconnectTimer || connection) return;
    const delay = Math.min(options.reconnectMaxMs, options.reconnectBaseMs * 2 ** reconnectAttempt);
    reconnectAttempt++;
    reconnectTimer = setTimeout(async () => {
      reconnectTimer = undefined;
      try {
        const conn = await connectOnce();
        log.info('remote server reconnected');
        await becomeOnline(conn, 'recovery');
      } catch (error) {
        log.debug({ err: error }, 'reconnection attempt failed');
        if (!connection) scheduleReconnect();
      }
    }, delay);
    reconnectTimer.unref();
  };

  const call = async (conn: Connection, name: string, args: Record<string, unknown>, callOptions: ToolCallOptions) =>
    (await conn.client.callTool({ name, arguments: args }, undefined, {
      timeout: options.requestTimeoutMs,
      ...(callOptions.signal ? { signal: callOptions.signal } : {}),
      ...(callOptions.onProgress ? { onprogress: callOptions.onProgress } : {}),
    })) as CallToolResult;

  return {
    config,
    serverName: options.serverName,
    status: state.status,
    tools: state.tools,
    connected: () => connection !== undefined,
    async start() {
      state.setStatus('connecting', 'process');
      try {
        const conn = await connectOnce();
        await becomeOnline(conn, 'process');
      } catch (error) {
        log.warn({ err: error }, 'remote server not reachable; will retry');
        lose(error);
      }
    },
    unavailableReason() {
      const status = state.status();
      if (status === 'online') return null;
      if (status === 'offline') return lastError || 'offline';
      return closed ? 'stopped' : 'connecting';
    },
    async callTool(name, args, callOptions = {}) {
      const began = performance.now();
      let ok = false;
      try {
        let conn = connection;
        if (!conn) {
          // The spec's recovery row: a call reaching an offline server that answers brings it back at
          // once (status event now), and its tools are rediscovered in the background.
          try {
            conn = await connectOnce();
          } catch {
            throw new AppError('unavailable', `MCP server "${options.serverName}" is offline`, {
              instructions: 'The satellite keeps trying to reconnect; call again later.',
            });
          }
          state.setStatus('online', 'recovery');
          void state.discover(conn.client).catch((e) => log.warn({ err: e }, 'rediscovery failed'));
        }
        let result: CallToolResult;
        try {
          result = await call(conn, name, args, callOptions);
        } catch (error) {
          if (!isConnectionRefused(error)) throw error;
          // The request never reached the server (refused, or a session it lost): reconnect once and retry.
          connection = undefined;
          void conn.client.close().catch(() => {});
          try {
            conn = await connectOnce();
          } catch (reconnectError) {
            lose(reconnectError);
            throw new AppError('unavailable', `MCP server "${options.serverName}" is offline`);
          }
          result = await call(conn, name, args, callOptions);
        }
        ok = !result.isError;
        return result;
      } finally {
        stats.record(performance.now() - began, ok);
      }
    },
    /** A ping; a failure takes the server offline and starts reconnecting. */
    async checkHealth() {
      const conn = connection;
      if (!conn) {
        scheduleReconnect();
        return false;
      }
      try {
        await conn.client.ping({ timeout: options.handshakeTimeoutMs });
        return true;
      } catch (error) {
        if (connection === conn) lose(error);
        return false;
      }
    },
    async stop() {
      closed = true;
      if (reconnectTimer) clearTimeout(reconnectTimer);
      await connecting?.catch(() => {});
      const conn = connection;
      connection = undefined;
      if (conn) {
        // Ends the server's session (DELETE for Streamable HTTP) before closing.
        if (conn.transport instanceof StreamableHTTPClientTransport)
          await conn.transport.terminateSession().catch(() => {});
        await conn.client.close().catch(() => {});
      }
    },
    snapshot() {
      const status = state.status();
      return {
        installation_id: config.installation_id,
        server_name: options.serverName,
        server_slug: config.server_slug,
        team_id: config.team_id,
        transport: config.transport,
        status,
        state: connection ? 'connected' : closed ? 'stopped' : 'disconnected',
        health: connection ? 'healthy' : status === 'offline' ? 'unhealthy' : 'unknown',
        process_id: null,
        tool_count: state.tools().length,
        crash_count: 0,
        uptime_seconds: connectedAt === undefined ? null : (Date.now() - connectedAt) / 1000,
        usage: null,
        requests: stats.snapshot(),
      };
    },
  };
}
