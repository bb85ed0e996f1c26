import { createLiveStreams, type LiveStreams } from '@orbital/sse';
import type { FastifyInstance } from 'fastify';
import {
  addSignedInMember,
  bearer,
  type IdentityStack,
  loginAdmin,
  type Session,
  startIdentityStack,
} from './identityStack.ts';

export type Who = 'admin' | 'teamAdmin' | 'teamUser' | 'otherTeam';

export type StreamTestStack = {
  stack: IdentityStack;
  app: FastifyInstance;
  /** http://127.0.0.1:<port> of the listening gateway (SSE clients need a socket). */
  base: string;
  live: LiveStreams;
  teamA: string;
  teamB: string;
  /** An HTTP call as `who`; the body is as loosely typed as inject's own `json()`. */
  call: ReturnType<typeof caller>;
  cookieOf(who: Who): Record<string, string>;
  stop(): Promise<void>;
};

/**
 * The identity stack listening on a port with a short keep-alive, two teams and four people: the
 * global admin, team A's admin and user, and team B's admin. Shared by the stream tests.
 */
export async function startStreamTestStack(): Promise<StreamTestStack> {
  const live = createLiveStreams();
  const stack = await startIdentityStack({ sse: { live, keepAliveMs: 200, retryMs: 1500 } });
  const app = stack.app;
  if (!app) throw new Error('no gateway');
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  const sessions: Partial<Record<Who, Session>> = {};
  const call = caller(app, sessions);
  const admin = await loginAdmin(app);
  sessions.admin = admin;
  const teamA = (await call('POST', '/api/teams', 'admin', { slug: 'team-a', name: 'A' })).body.data.id;
  const teamB = (await call('POST', '/api/teams', 'admin', { slug: 'team-b', name: 'B' })).body.data.id;
  for (const [who, team, role] of [
    ['teamAdmin', teamA, 'team_admin'],
    ['teamUser', teamA, 'team_user'],
    ['otherTeam', teamB, 'team_admin'],
  ] as const) {
    sessions[who] = await addSignedInMember(app, admin, team, role, {
      email: `${who.toLowerCase()}@orbital.test`,
      password: `correct horse battery ${who.length} staple`,
      name: who,
    });
  }
  return {
    stack,
    app,
    base: `http://127.0.0.1:${address.port}`,
    live,
    teamA,
    teamB,
    call,
    cookieOf: (who) => ({ cookie: `session=${sessions[who]?.cookie}` }),
    stop: () => stack.stop(),
  };
}

function caller(app: FastifyInstance, sessions: Partial<Record<Who, Session>>) {
  return async (
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    url: string,
    who: Who | null,
    payload?: unknown,
    headers: Record<string, string> = {},
  ) => {
    const session = who ? sessions[who] : undefined;
    const response = await app.inject({
      method,
      url,
      headers: { ...(session ? bearer(session) : {}), ...headers },
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    });
    return { status: response.statusCode, body: response.json() };
  };
}

export async function waitUntil(check: () => boolean | Promise<boolean>, timeoutMs = 10000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}
