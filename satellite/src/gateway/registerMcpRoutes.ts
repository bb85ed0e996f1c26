import { randomBytes } from 'node:crypto';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { BearerAuthenticator } from '../auth/createBearerAuthenticator.ts';
import { identityOf } from '../auth/createIntrospectionVerifier.ts';
import { checkRequestOrigin, type OriginPolicy } from './checkRequestOrigin.ts';
import { createMetaToolServer, type createToolHandlers } from './createMetaToolServer.ts';
import type { SessionOwner, SessionStore } from './createSessionStore.ts';

/** JSON-RPC error bodies for what is refused before a session's transport sees the request. */
function refuse(reply: FastifyReply, status: number, code: number, message: string) {
  return reply.status(status).type('application/json').send({ jsonrpc: '2.0', error: { code, message }, id: null });
}

/** Session ids: 32 random bytes, base64url (spec "MCP client session"). */
export function newSessionId(): string {
  return randomBytes(32).toString('base64url');
}

const notFound = 'Session not found or expired; initialize a new session';

/** The verified token of a request (SDK convention: `req.auth`, which the transport hands to handlers). */
const authOf = (request: FastifyRequest) => (request.raw as { auth?: AuthInfo }).auth;

function ownerOf(request: FastifyRequest): SessionOwner {
  const auth = authOf(request);
  if (!auth) return null;
  const { userId, teamId } = identityOf(auth);
  return { userId, teamId };
}

/**
 * `/mcp` on the SDK's Streamable HTTP transport, one transport and one MCP server per session.
 * Requests naming a session the satellite did not issue, or one that expired, get 404 so clients
 * initialise again. Responses stream as SSE (the default): `enableJsonResponse` leaks per call on
 * stateful sessions in SDK 1.32 (CONVENTIONS.md).
 *
 * With `authenticate` (SATELLITE_AUTH_MODE=oauth) every request carries a bearer token, checked
 * before anything else; a session belongs to the user and team that opened it, and a request of
 * another identity naming its id is answered 404 like an unknown id (see createSessionStore).
 */
export function registerMcpRoutes(
  app: FastifyInstance,
  deps: {
    sessions: SessionStore;
    handlers: ReturnType<typeof createToolHandlers>;
    originPolicy: OriginPolicy;
    authenticate?: BearerAuthenticator;
  },
): void {
  const { sessions } = deps;

  app.addHook('onRequest', async (request, reply) => {
    if (!request.url.startsWith('/mcp')) return;
    const check = checkRequestOrigin({ host: request.headers.host, origin: request.headers.origin }, deps.originPolicy);
    if (!check.ok) return refuse(reply, 403, -32000, `Forbidden: ${check.reason}`);
    if (deps.authenticate) {
      const auth = await deps.authenticate(request, reply);
      if (!auth) return reply;
      (request.raw as { auth?: AuthInfo }).auth = auth;
    }
  });

  const sessionIdOf = (headers: Record<string, unknown>) => {
    const value = headers['mcp-session-id'];
    return typeof value === 'string' && value.length > 0 ? value : undefined;
  };

  app.post('/mcp', async (request, reply) => {
    const sessionId = sessionIdOf(request.headers);
    if (sessionId) {
      const session = sessions.touch(sessionId, ownerOf(request));
      if (!session) return refuse(reply, 404, -32001, notFound);
      reply.hijack();
      await session.transport.handleRequest(request.raw, reply.raw, request.body);
      return;
    }
    if (!isInitializeRequest(request.body)) {
      return refuse(reply, 400, -32000, 'Bad Request: no session id; the first request must be initialize');
    }
    let created: ReturnType<typeof sessions.add> | undefined;
    const owner = ownerOf(request);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: newSessionId,
      onsessioninitialized: (id) => {
        created = sessions.add(
          { id, owner, transport, server },
          { userAgent: request.headers['user-agent'] ?? '', ip: request.ip },
        );
      },
    });
    const server = createMetaToolServer(deps.handlers, {
      onExecute: () => {
        if (created) created.toolExecutions++;
      },
      // The session's tools: its team's only when it is authenticated.
      scope: owner,
    });
    transport.onclose = () => {
      if (transport.sessionId) void sessions.remove(transport.sessionId, 'client_close');
    };
    await server.connect(transport);
    reply.hijack();
    await transport.handleRequest(request.raw, reply.raw, request.body);
    if (!transport.sessionId) {
      // The initialize was refused (bad protocol version, bad headers): nothing to keep.
      await transport.close().catch(() => {});
      await server.close().catch(() => {});
    }
  });

  const withSession = async (request: FastifyRequest, reply: FastifyReply) => {
    const sessionId = sessionIdOf(request.headers);
    if (!sessionId) return refuse(reply, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
    const session = sessions.touch(sessionId, ownerOf(request));
    if (!session) return refuse(reply, 404, -32001, notFound);
    reply.hijack();
    await session.transport.handleRequest(request.raw, reply.raw);
  };
  app.get('/mcp', withSession);
  app.delete('/mcp', withSession);
}
