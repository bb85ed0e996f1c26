import { AsyncLocalStorage } from 'node:async_hooks';
import {
  SSEClientTransport,
  SseError,
  StreamableHTTPClientTransport,
  type Transport,
} from '@modelcontextprotocol/client';
import { isTransportOwnedHeader, type ServerConfiguration } from '@orbital/contracts';
import type { Logger } from '@orbital/logger';
import { withOrderedDelivery } from '../sdkAdaptation/withOrderedDelivery.ts';
import type { InstallationGeneration } from './createGenerationCache.ts';
import { createSizeLimitedFetch } from './createSizeLimitedFetch.ts';
import { createUpstreamClient, outsideCall, type UpstreamLimits } from './createUpstreamClient.ts';
import { isConnectionRefused, SessionNotFoundError } from './isConnectionRefused.ts';
import { isServerUnreachable } from './isServerUnreachable.ts';
import type { Failure } from './lifecycle/lifecycleState.ts';
import { ConnectFailure, type UpstreamConnection, type UpstreamConnector } from './upstreamConnection.ts';
import type { UpstreamTokens } from './upstreamTokens.ts';

/** What connecting to a remote server needs, and nothing else. */
export type RemoteConnectorSettings = {
  /** Connect and handshake together. */
  handshakeTimeoutMs: number;
  /** No message from the server may be longer; see createSizeLimitedFetch. */
  maxMessageBytes: number;
  callLimits: UpstreamLimits;
};

const failureOf = (message: string): Failure => ({ message, pid: 0, exitCode: null, signal: null });

/**
 * Connections to one remote installation over Streamable HTTP or SSE, every request carrying the
 * headers of its configuration. A connection reports itself lost when its client closes, or when an
 * SSE stream ends (which the SDK only reports as an error).
 */
export function createRemoteConnector(options: {
  config: ServerConfiguration;
  serverName: string;
  logger: Logger;
  /** The generation verdict of this installation, kept across its connections. */
  generation: InstallationGeneration;
  settings: RemoteConnectorSettings;
  /** Access tokens of servers behind OAuth (`config.oauth`); absent in standalone mode, which has none. */
  tokens?: UpstreamTokens;
}): UpstreamConnector {
  const { config, settings, generation } = options;
  const log = options.logger.child({ installation_id: config.installation_id, server: options.serverName });
  // Headers the transport sets itself (content type, session id, protocol version, framing) are never
  // taken from the configuration: installations refuse them, and a row stored before that is served
  // with them left out rather than with a broken protocol.
  const ignored = Object.keys(config.headers).filter(isTransportOwnedHeader);
  const headers = Object.entries(config.headers).filter(([name]) => !isTransportOwnedHeader(name));
  if (ignored.length > 0) {
    log.warn({ ignored_headers: ignored }, 'headers the MCP transport sets itself are left out of the configured ones');
  }
  // Whose call a request belongs to: a call runs inside it, so every request the SDK makes for the call
  // (its POST, an SSE post) carries that person's token; requests outside calls (the handshake, listing
  // tools) carry any token of the installation.
  const caller = new AsyncLocalStorage<{ userId: string | null }>();
  const withToken = async (url: string | URL, init: RequestInit | undefined, merged: Headers): Promise<Response> => {
    const tokens = options.tokens;
    if (!tokens) {
      throw new Error(
        'this MCP server needs OAuth tokens, which only a satellite linked to the backend (BACKEND_URL) can get',
      );
    }
    const call = caller.getStore();
    const ask = (refused: boolean) =>
      tokens.token({
        installationId: config.installation_id,
        userId: call?.userId ?? null,
        purpose: call ? 'call' : 'discovery',
        refused,
      });
    const send = async (refused: boolean) => {
      const answer = await ask(refused);
      if (answer.kind !== 'ok') throw new Error(answer.message);
      merged.set('authorization', `Bearer ${answer.token}`);
      return fetch(url, { ...init, headers: merged });
    };
    const first = await send(false);
    // A token the server refuses (expired early, revoked): once more with a fresh one, when the
    // request can be sent again (its body is text, as the SDK's are).
    if (first.status !== 401 || (init?.body !== undefined && typeof init.body !== 'string')) return first;
    await first.body?.cancel().catch(() => {});
    return send(true);
  };
  const fetchWithHeaders = createSizeLimitedFetch((url: string | URL, init?: RequestInit) => {
    const merged = new Headers(init?.headers);
    for (const [name, value] of headers) merged.set(name, value);
    if (config.oauth) return withToken(url, init, merged);
    return fetch(url, { ...init, headers: merged });
  }, settings.maxMessageBytes);
  /** SSE posts answered 404 went into a session the server lost: typed, so the call can be sent again. */
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
    // The SDK's own stream reconnection is off: a lost server is the supervisor's business.
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

  return {
    transport: config.transport,
    open(signal) {
      return outsideCall(async (): Promise<UpstreamConnection> => {
        const upstream = createUpstreamClient({ serverName: options.serverName, limits: settings.callLimits });
        const transport = makeTransport();
        const abandon = () => void upstream.close().catch(() => {});
        signal.addEventListener('abort', abandon, { once: true });
        try {
          generation.set(
            await upstream.connect(transport, { timeoutMs: settings.handshakeTimeoutMs, prior: generation.get() }),
          );
        } catch (error) {
          // A verdict the server did not accept is settled again by the next attempt; one it could not
          // be asked about (the server is down) stands.
          if (!isServerUnreachable(error) && !signal.aborted) generation.forget();
          await upstream.close().catch(() => {});
          throw new ConnectFailure(failureOf((error as Error).message ?? String(error)), { cause: error });
        } finally {
          signal.removeEventListener('abort', abandon);
        }
        if (signal.aborted) {
          await upstream.close().catch(() => {});
          throw new ConnectFailure(failureOf('the satellite is stopping'));
        }
        log.info({ protocol_version: upstream.protocolVersion(), era: upstream.era() }, 'remote server connected');
        let closing = false;
        let lost: ((failure: Failure) => void) | undefined;
        const lose = (message: string) => {
          if (closing) return;
          closing = true;
          lost?.(failureOf(message));
        };
        upstream.client.onclose = () => lose('connection closed');
        // An SSE stream that ends is only reported as an error: the SDK's transport neither closes nor
        // fails the requests waiting for answers on it, and its EventSource would quietly open a new,
        // uninitialised session. Treat it as the lost connection it is.
        upstream.client.onerror = (error) => {
          if (error instanceof SseError) lose(error.message);
        };
        return {
          pid: 0,
          protocolVersion: () => upstream.protocolVersion(),
          listTools: (signal) => upstream.listTools(signal),
          watchTools: (onChange) => upstream.watchTools(onChange),
          callTool: (name, args, callOptions) =>
            caller.run({ userId: callOptions.userId ?? null }, () => upstream.callTool(name, args, callOptions)),
          checkAlive: (timeoutMs) => upstream.checkAlive(timeoutMs),
          neverDelivered: isConnectionRefused,
          onLost(listener) {
            lost = listener;
          },
          async close() {
            closing = true;
            // Ends the server's session (DELETE for Streamable HTTP) before closing.
            if (transport instanceof StreamableHTTPClientTransport) await transport.terminateSession().catch(() => {});
            await upstream.close().catch(() => {});
          },
          inFlight: () => upstream.inFlight(),
          usage: () => null,
        };
      });
    },
    dispose() {},
  };
}
