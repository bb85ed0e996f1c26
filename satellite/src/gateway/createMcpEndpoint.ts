import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import {
  type AuthInfo,
  CLIENT_INFO_META_KEY,
  createMcpHandler,
  isInitializeRequest,
  isLegacyRequest,
  PROTOCOL_VERSION_META_KEY,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import { identityOf } from '../auth/createIntrospectionVerifier.ts';
import {
  acceptsBothMediaTypes,
  answerLegacyToolCall,
  answerModernToolCall,
  type PlainAnswer,
  readPlainLegacyToolCall,
  readPlainModernToolCall,
} from '../sdkAdaptation/plainToolCall.ts';
import { modernProtocolVersion } from '../sdkAdaptation/protocolVersions.ts';
import { type RequestGeneration, readRequestGeneration } from '../sdkAdaptation/requestGeneration.ts';
import { type CallRegistry, createCallRegistry } from './createCallRegistry.ts';
import { asksForInput, createMetaToolServer, type ToolHandlers } from './createMetaToolServer.ts';
import type { SessionlessClients } from './createSessionlessClients.ts';
import type { Session, SessionOwner, SessionStore } from './createSessionStore.ts';
import type { SuspendedCalls } from './createSuspendedCalls.ts';
import { isPlainObject, isRequestId } from './jsonRpcShape.ts';

/**
 * Session ids: the issuing process's tag and 32 random bytes, base64url. The tag tells a replica that
 * an id it does not know was issued elsewhere (another replica, or this one before a restart).
 */
export function newSessionId(instanceTag: string): string {
  return `${instanceTag}.${randomBytes(32).toString('base64url')}`;
}

/** The body of a JSON-RPC error answered before any MCP server sees the request. */
function jsonRpcErrorBody(code: number, message: string, id: string | number | null = null) {
  return { jsonrpc: '2.0', error: { code, message }, id };
}

/** A JSON-RPC error answered before any MCP server sees the request. */
export function jsonRpcError(status: number, code: number, message: string, id: string | number | null = null) {
  return Response.json(jsonRpcErrorBody(code, message, id), { status });
}

const sessionNotFound = 'Session not found or expired; initialize a new session';

/**
 * Why a session id is not known here. An id of another process means the client reached another
 * replica than the one holding its session (or a replica that restarted): 2025 clients need affinity.
 */
function sessionNotFoundMessage(sessionId: string, instanceTag: string): string {
  const dot = sessionId.indexOf('.');
  if (dot <= 0 || sessionId.slice(0, dot) === instanceTag) return sessionNotFound;
  return `${sessionNotFound}. This session was opened on another satellite replica (or before this one restarted): a 2025 client keeps its session on the replica that opened it, so the load balancer needs session affinity on the Mcp-Session-Id header (a 2026-07-28 client needs none).`;
}

/**
 * The name and version a client gives in `clientInfo` (in its initialize, or in every 2026-07-28
 * request's envelope): what the client calls itself, where its user agent (an SDK's, a script's)
 * usually says nothing of the product.
 */
function nameAndVersionOf(info: unknown): { name?: string; version?: string } {
  if (!isPlainObject(info)) return {};
  return {
    ...(typeof info.name === 'string' && info.name ? { name: info.name } : {}),
    ...(typeof info.version === 'string' && info.version ? { version: info.version } : {}),
  };
}

function paramsOf(body: unknown): Record<string, unknown> | undefined {
  const params = isPlainObject(body) ? body.params : undefined;
  return isPlainObject(params) ? params : undefined;
}

/**
 * A 2026-07-28 request's client as its envelope names it, and whether the request starts an
 * execute_mcp_tool call (a retry carrying `requestState` continues one); undefined for a body
 * without the 2026-07-28 envelope.
 */
function sessionlessRequestOf(body: unknown) {
  const params = paramsOf(body);
  const meta = params?._meta;
  if (!isPlainObject(meta) || meta[PROTOCOL_VERSION_META_KEY] !== modernProtocolVersion) return undefined;
  const execution =
    (body as { method?: unknown }).method === 'tools/call' &&
    params?.name === 'execute_mcp_tool' &&
    typeof params.requestState !== 'string';
  return { info: nameAndVersionOf(meta[CLIENT_INFO_META_KEY]), execution };
}

function ownerOf(auth: AuthInfo | undefined): SessionOwner {
  if (!auth) return null;
  const { userId, teamId } = identityOf(auth);
  return { userId, teamId };
}

export type EndpointRequestOptions = {
  /** The verified token (oauth mode): the caller's identity and team. */
  authInfo?: AuthInfo;
  /** The JSON body, already parsed by the HTTP layer. */
  parsedBody?: unknown;
  /** Where the request came from, for the client's `mcp.client.connected` event. */
  clientIp?: string;
  /** The request's protocol generation as the HTTP layer worked it out (read here when absent). */
  generation?: RequestGeneration;
};

/**
 * `/mcp` for both protocol generations, as a web-standard handler (the HTTP layer adapts it).
 *
 * - A request of the 2026-07-28 revision (its `_meta` names the revision) is served statelessly by
 *   the SDK's per-request handler: a fresh meta-tool server per request, nothing kept between
 *   requests except calls waiting for the client's input, so any replica answers. The SDK checks
 *   the revision (-32022 with the supported list), the `Mcp-Method`/`Mcp-Name` headers against the
 *   body (-32020), answers `server/discover` and `subscriptions/listen`, stamps `serverInfo` and
 *   the cache hints into results, and refuses the removed methods.
 * - Everything else is a legacy client (2025-03-26 to 2025-11-25) and gets sessions: `initialize`
 *   opens one, its id names it on every later POST, GET (the notification stream) and DELETE; an
 *   unknown, expired or other identity's id is 404 so the client initialises again.
 */
export function createMcpEndpoint(deps: {
  sessions: SessionStore;
  /** 2026-07-28 clients, followed for the recent clients list as sessions are. */
  clients: SessionlessClients;
  handlers: ToolHandlers;
  suspended: SuspendedCalls;
  /** This process's tag in the session ids it issues. */
  instanceTag: string;
  /** How often an event stream waiting for a slow call gets a keep-alive comment. */
  keepAliveMs: number;
  onerror?: (error: Error) => void;
}) {
  const { sessions, clients, handlers, suspended } = deps;
  /** Notes a 2026-07-28 request's client; every such request reaches `/mcp` through one of two paths. */
  const noteSessionless = (owner: SessionOwner, body: unknown, userAgent: string | undefined, ip = '') => {
    const request = sessionlessRequestOf(body);
    if (request) clients.seen(owner, { ...request.info, userAgent: userAgent ?? '', ip }, request.execution);
  };
  const modern = createMcpHandler(
    ({ authInfo }) => createMetaToolServer(handlers, { era: 'modern', scope: ownerOf(authInfo), suspended }),
    {
      legacy: 'reject',
      keepAliveMs: deps.keepAliveMs,
      ...(deps.onerror ? { onerror: deps.onerror } : {}),
    },
  );

  const openSession = async (request: Request, options: EndpointRequestOptions): Promise<Response> => {
    const owner = ownerOf(options.authInfo);
    let created: ReturnType<SessionStore['add']> | undefined;
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => newSessionId(deps.instanceTag),
      keepAliveMs: deps.keepAliveMs,
      onsessioninitialized: (id) => {
        created = sessions.add(
          { id, owner, transport, server },
          {
            userAgent: request.headers.get('user-agent') ?? '',
            ip: options.clientIp ?? '',
            ...nameAndVersionOf(paramsOf(options.parsedBody)?.clientInfo),
          },
        );
      },
    });
    const server = createMetaToolServer(handlers, {
      era: 'legacy',
      scope: owner,
      onExecute: () => {
        if (created) created.toolExecutions++;
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) void sessions.remove(transport.sessionId, 'client_close');
    };
    await server.connect(transport);
    const response = await transport.handleRequest(request, requestOptions(options));
    if (!transport.sessionId) {
      // The initialize was refused (bad protocol version, bad headers): nothing to keep.
      await transport.close().catch(() => {});
      await server.close().catch(() => {});
    }
    return response;
  };

  /**
   * A plain call under `calls`, stopped by the client going away (`gone`) and by whatever stops the
   * registry's calls: a session's cancellations and end, the endpoint's close.
   */
  const tracked = (
    calls: CallRegistry,
    id: string | number,
    gone: AbortSignal,
    answer: (signal: AbortSignal) => PlainAnswer,
  ): PlainAnswer => {
    const stop = calls.start(id);
    const onGone = () => stop.abort(gone.reason);
    gone.addEventListener('abort', onGone, { once: true });
    const answered = answer(stop.signal);
    const settled = () => {
      gone.removeEventListener('abort', onGone);
      calls.end(id, stop);
    };
    return { ...answered, body: answered.body.finally(settled) };
  };
  /** Modern plain calls, which no session holds: only the endpoint's close stops them all. */
  const modernCalls = createCallRegistry();
  let closed = false;

  const serveLegacy = async (request: Request, options: EndpointRequestOptions): Promise<Response> => {
    const sessionId = request.headers.get('mcp-session-id');
    if (sessionId) {
      const session = sessions.touch(sessionId, ownerOf(options.authInfo));
      if (!session) return jsonRpcError(404, -32001, sessionNotFoundMessage(sessionId, deps.instanceTag));
      const response = await session.transport.handleRequest(request, requestOptions(options));
      // A cancellation the session accepted also stops the plain call it names.
      if (response.status === 202 && session.plainCalls.size() > 0) cancelPlainCalls(session, options.parsedBody);
      return response;
    }
    if (request.method === 'POST' && isInitializeRequest(options.parsedBody)) return openSession(request, options);
    if (request.method !== 'POST') {
      return jsonRpcError(400, -32000, 'Bad Request: Mcp-Session-Id header is required');
    }
    return jsonRpcError(
      400,
      -32000,
      'Bad Request: no session id. A 2025 client starts with initialize; a 2026-07-28 client names the revision in each request (_meta and MCP-Protocol-Version).',
    );
  };

  return {
    /**
     * The plain tool call of either generation (see plainToolCall.ts), answered straight from the
     * HTTP layer's headers and parsed body; undefined when the request is not one and must go
     * through `fetch`.
     */
    answerPlainToolCall(
      headers: IncomingHttpHeaders,
      body: unknown,
      options: { authInfo?: AuthInfo; signal: AbortSignal; generation: RequestGeneration; clientIp?: string },
    ): PlainAnswer | undefined {
      // A closed endpoint refuses everything, as the SDK's handler does.
      if (closed) return undefined;
      const scope = ownerOf(options.authInfo);
      if (options.generation === 'modern') {
        const modernCall = readPlainModernToolCall(headers, body);
        if (!modernCall) return undefined;
        noteSessionless(scope, body, headers['user-agent'], options.clientIp);
        return tracked(modernCalls, modernCall.id, options.signal, (signal) =>
          answerModernToolCall(modernCall, { handlers, scope, signal }),
        );
      }
      if (options.generation !== 'legacy') return undefined;
      const legacyCall = readPlainLegacyToolCall(headers, body);
      if (!legacyCall) return undefined;
      const session = sessions.touch(legacyCall.sessionId, scope);
      if (!session) return sessionNotFoundAnswer(sessionNotFoundMessage(legacyCall.sessionId, deps.instanceTag));
      if (legacyCall.tool === 'execute_mcp_tool') {
        if (asksForInput(session.server.getClientCapabilities())) return undefined;
        session.toolExecutions++;
      }
      return tracked(session.plainCalls, legacyCall.id, options.signal, (signal) =>
        answerLegacyToolCall(legacyCall, { handlers, scope, signal, sessionId: session.id }),
      );
    },
    async fetch(request: Request, options: EndpointRequestOptions = {}): Promise<Response> {
      const body = options.parsedBody;
      const generation =
        options.generation ?? readRequestGeneration(request.method, headersOf(request), options.parsedBody);
      if (generation === 'legacy') return serveLegacy(request, options);
      if (generation === 'undecided' && (await isLegacyRequest(request, body))) return serveLegacy(request, options);
      // The SDK's session transport checks `Accept` for 2025 clients; its per-request handler does not.
      if (request.method === 'POST' && !acceptsBothMediaTypes(request.headers.get('accept'))) {
        return jsonRpcError(
          406,
          -32000,
          'Not Acceptable: Client must accept both application/json and text/event-stream',
        );
      }
      if (request.method === 'POST') {
        noteSessionless(
          ownerOf(options.authInfo),
          body,
          request.headers.get('user-agent') ?? undefined,
          options.clientIp,
        );
      }
      return modern.fetch(request, requestOptions(options));
    },
    close: () => {
      closed = true;
      modernCalls.stopAll(new Error('the satellite is shutting down'));
      return modern.close();
    },
  };
}

/** The session's answer to an unknown, expired or other identity's session id. */
const sessionNotFoundAnswer = (message: string): PlainAnswer => ({
  status: 404,
  headers: { 'content-type': 'application/json' },
  stream: false,
  body: Promise.resolve(JSON.stringify(jsonRpcErrorBody(-32001, message))),
});

/**
 * A session's `notifications/cancelled` (alone or in a batch) for one of its plain calls stops that
 * call; the message still goes to the session's server, which ignores ids it does not know.
 */
function cancelPlainCalls(session: Session, body: unknown): void {
  for (const message of Array.isArray(body) ? body : [body]) {
    if (!isPlainObject(message) || message.method !== 'notifications/cancelled') continue;
    const params = message.params;
    if (!isPlainObject(params)) continue;
    const requestId = params.requestId;
    if (!isRequestId(requestId)) continue;
    const reason = typeof params.reason === 'string' ? params.reason : 'cancelled by the client';
    session.plainCalls.stop(requestId, new Error(reason));
  }
}

/** The one header `readRequestGeneration` reads, from a web Request. */
function headersOf(request: Request): IncomingHttpHeaders {
  const version = request.headers.get('mcp-protocol-version');
  return version === null ? {} : { 'mcp-protocol-version': version };
}

function requestOptions(options: EndpointRequestOptions) {
  return {
    ...(options.authInfo ? { authInfo: options.authInfo } : {}),
    ...(options.parsedBody !== undefined ? { parsedBody: options.parsedBody } : {}),
  };
}

export type McpEndpoint = ReturnType<typeof createMcpEndpoint>;
