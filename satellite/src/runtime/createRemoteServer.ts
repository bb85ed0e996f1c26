import {
  type CallToolResult,
  SSEClientTransport,
  SseError,
  StreamableHTTPClientTransport,
  type Transport,
} from '@modelcontextprotocol/client';
import type { ServerConfiguration } from '@orbital/contracts';
import { AppError } from '@orbital/errors';
import type { Logger } from '@orbital/logger';
import type { EventSink } from '../events/eventSink.ts';
import type { InstallationGeneration } from './createGenerationCache.ts';
import { createResponseStats } from './createResponseStats.ts';
import { createServerState } from './createServerState.ts';
import { createSizeLimitedFetch } from './createSizeLimitedFetch.ts';
import { createUpstreamClient, outsideCall, type UpstreamClient, type UpstreamLimits } from './createUpstreamClient.ts';
import { isConnectionRefused, SessionNotFoundError } from './isConnectionRefused.ts';
import { isServerUnreachable } from './isServerUnreachable.ts';
import type { ManagedServer } from './managedServer.ts';
import { withOrderedDelivery } from './withOrderedDelivery.ts';

export type RemoteServerOptions = {
  config: ServerConfiguration;
  serverName: string;
  events: EventSink;
  logger: Logger;
  onChange: () => void;
  handshakeTimeoutMs: number;
  limits: UpstreamLimits;
  /** No message from the server may be longer; see createSizeLimitedFetch. */
  maxMessageBytes: number;
  /** The generation verdict of this installation, kept across its connections. */
  generation: InstallationGeneration;
  /** First reconnection delay; doubles per failed attempt up to `reconnectMaxMs`. */
  reconnectBaseMs: number;
  reconnectMaxMs: number;
};

type Connection = { upstream: UpstreamClient; transport: Transport };

/**
 * One remote installation over Streamable HTTP or SSE, with the headers of its configuration. A lost
 * server goes `offline` and is reconnected in the background with backoff. Connecting is retried;
 * a tool call is retried only when the error proves it never reached the server.
 */
export function createRemoteServer(options: RemoteServerOptions): ManagedServer & {
  checkHealth(): Promise<boolean>;
  connected(): boolean;
  recover(): Promise<boolean>;
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
  const fetchWithHeaders = createSizeLimitedFetch((url: string | URL, init?: RequestInit) => {
    const merged = new Headers(init?.headers);
    for (const [name, value] of Object.entries(headers)) merged.set(name, value);
    return fetch(url, { ...init, headers: merged });
  }, options.maxMessageBytes);
  /** SSE posts answered 404 went into a session the server lost: typed, so the call can be retried. */
  const fetchForSse = async (url: string | URL, init?: RequestInit) => {
    const response = await fetchWithHeaders(url, init);
    if (init?.method === 'POST' && response.status === 404) {
      await response.body?.cancel().catch(() => {});
      throw new SessionNotFoundError(String(url));
    }
    return response;
  };

  const makeTransport = (): Transport => {
    const url = new URL(config.url ?? '');
    if (config.transport === 'sse') return withOrderedDelivery(new SSEClientTransport(url, { fetch: fetchForSse }));
    // The SDK's own stream reconnection is off: a lost server is this module's business.
    return withOrderedDelivery(
      new StreamableHTTPClientTransport(url, {
        fetch: fetchWithHeaders,
        reconnectionOptions: {
          maxReconnectionDelay: 1000,
          initialReconnectionDelay: 1000,
          reconnectionDelayGrowFactor: 1,
          maxRetries: 0,
        },
      }),
    );
  };

  /** One connection attempt (handshake included); concurrent callers share it. */
  const connectOnce = (): Promise<Connection> => {
    if (connection) return Promise.resolve(connection);
    connecting ??= outsideCall(async () => {
      const upstream = createUpstreamClient({ serverName: options.serverName, limits: options.limits });
      const transport = makeTransport();
      try {
        options.generation.set(
          await upstream.connect(transport, { timeoutMs: options.handshakeTimeoutMs, prior: options.generation.get() }),
        );
      } catch (error) {
        // A verdict the server did not accept is settled again by the next attempt; one it could not be
        // asked about (the server is down) stands.
        if (!isServerUnreachable(error)) options.generation.forget();
        await upstream.close().catch(() => {});
        throw error;
      }
      const next = { upstream, transport };
      upstream.client.onclose = () => {
        if (connection === next) lose(new Error('connection closed'));
      };
      // An SSE stream that ends is only reported as an error: the SDK's transport neither closes nor
      // fails the requests waiting for answers on it, and its EventSource would quietly open a new,
      // uninitialised session. Treat it as the lost connection it is: close (pending calls fail at
      // once, without a retry) and reconnect with a fresh handshake.
      upstream.client.onerror = (error) => {
        if (connection === next && error instanceof SseError) lose(error);
      };
      if (closed) {
        await upstream.close().catch(() => {});
        throw new AppError('unavailable', 'the satellite is shutting down');
      }
      log.info({ protocol_version: upstream.protocolVersion(), era: upstream.era() }, 'remote server connected');
      connection = next;
      connectedAt = Date.now();
      reconnectAttempt = 0;
      return next;
    }).finally(() => {
      connecting = undefined;
    });
    return connecting;
  };

  /** Lists the tools and keeps watching for changes the server announces. */
  const discoverTools = async (conn: Connection) => {
    await state.discover(() => conn.upstream.listTools());
    await conn.upstream
      .watchTools(() => {
        if (connection === conn) {
          void state.discover(() => conn.upstream.listTools()).catch((e) => log.warn({ err: e }, 'rediscovery failed'));
        }
      })
      .catch((e) => log.warn({ err: e }, 'could not watch the tool list'));
  };

  /** Connected: discover tools, then online (each status reported on the way). */
  const becomeOnline = async (conn: Connection, reason: 'process' | 'recovery') => {
    state.setStatus('discovering_tools', reason);
    await discoverTools(conn);
    state.setStatus('online', reason);
  };

  const lose = (error: unknown) => {
    const lost = connection;
    connection = undefined;
    connectedAt = undefined;
    if (lost) void lost.upstream.close().catch(() => {});
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
        // Connected but the tools could not be listed: that connection is no good either.
        if (connection) lose(error);
        else scheduleReconnect();
      }
    }, delay);
    reconnectTimer.unref();
  };

  /**
   * Recovery: a call (or a lookup) reaching an offline server that answers again brings
   * it back at once (status event now), and its tools are rediscovered in the background.
   */
  const reconnectNow = async (): Promise<Connection | undefined> => {
    if (connection) return connection;
    let conn: Connection;
    try {
      conn = await connectOnce();
    } catch {
      return undefined;
    }
    state.setStatus('online', 'recovery');
    void discoverTools(conn).catch((e) => log.warn({ err: e }, 'rediscovery failed'));
    return conn;
  };

  const unavailableReason = (): string | null => {
    const status = state.status();
    if (status === 'online') return null;
    if (status === 'offline') return lastError || 'offline';
    return closed ? 'stopped' : 'connecting';
  };

  const offline = () =>
    new AppError('unavailable', `MCP server "${options.serverName}" is offline${lastError ? ` (${lastError})` : ''}`, {
      instructions: 'The satellite keeps trying to reconnect; call again later.',
    });

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
    unavailableReason,
    async callTool(name, args, callOptions = {}) {
      const began = performance.now();
      let ok = false;
      try {
        let conn = connection ?? (await reconnectNow());
        if (!conn) throw offline();
        let result: CallToolResult;
        try {
          result = await conn.upstream.callTool(name, args, callOptions);
        } catch (error) {
          if (!isConnectionRefused(error)) throw error;
          // The request never reached the server (refused, or a session it lost): reconnect once and retry.
          if (connection === conn) connection = undefined;
          void conn.upstream.close().catch(() => {});
          try {
            conn = await connectOnce();
          } catch (reconnectError) {
            lose(reconnectError);
            throw offline();
          }
          result = await conn.upstream.callTool(name, args, callOptions);
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
        await conn.upstream.checkAlive(options.handshakeTimeoutMs);
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
        await conn.upstream.close().catch(() => {});
      }
    },
    /** Reconnects an offline server at once, for a caller about to be refused; true when it is back. */
    async recover() {
      if (closed) return false;
      return (await reconnectNow()) !== undefined;
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
        protocol_version: connection?.upstream.protocolVersion() ?? null,
        status_reason: unavailableReason(),
      };
    },
  };
}
