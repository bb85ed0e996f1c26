import { type CallerIdentity, defineBroadcast, defineSubject, emptyRequest } from '@orbital/contracts';
import { AppError } from '@orbital/errors';
import { createLogger } from '@orbital/logger';
import { createTestEnvironment, type TestEnvironment } from '@orbital/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { type Bus, createBus } from '../src/index.ts';

/** A public subject of the settings service, the kind most of these tests send and answer. */
const publicSubject = <Req extends z.ZodType, Rep extends z.ZodType>(name: string, request: Req, reply: Rep) =>
  defineSubject({
    subject: `settings.test.${name}`,
    service: 'settings',
    description: 'test',
    access: { public: true },
    request,
    reply,
  });
const echo = publicSubject(
  'echo',
  z.object({ text: z.string() }),
  z.object({ text: z.string(), replica: z.string(), identityKind: z.string(), requestId: z.string() }),
);
const slow = publicSubject('slow', emptyRequest, z.object({}));
const refuse = publicSubject('refuse', emptyRequest, z.object({}));
const broken = publicSubject('broken', emptyRequest, z.object({ n: z.number() }));

const brokenReply = publicSubject('broken_reply', emptyRequest, z.object({ n: z.number() }));

/** A team-scoped subject: members of the team in the request read, others are refused before the handler. */
const teamScoped = defineSubject({
  subject: 'installations.test.scoped',
  service: 'installations',
  description: 'test',
  access: { users: { kind: 'team', permission: 'installations.view', team: 'team_id' }, services: ['jobs'] },
  request: z.object({ team_id: z.string() }).strict(),
  reply: z.object({ teams: z.array(z.string()).nullable() }),
});
const ownSatellite = defineSubject({
  subject: 'registry.test.own',
  service: 'registry',
  description: 'test',
  access: { satellite: { field: 'satellite_id' } },
  request: z.object({ satellite_id: z.string() }).strict(),
  reply: z.object({}),
});
const ping = defineBroadcast({
  subject: 'test.ping',
  producer: 'gateway-api',
  listeners: ['gateway-api'],
  description: 'test',
  payload: z.object({ n: z.number() }),
  reply: z.object({ replica: z.string() }),
});

const member = (teamId: string, role: 'team_admin' | 'team_user'): CallerIdentity => ({
  kind: 'user',
  user_id: 'u1',
  global_role: 'global_user',
  memberships: [{ team_id: teamId, role }],
});

let env: TestEnvironment;
const buses: Bus[] = [];
const logger = createLogger({ name: 'bus-test', level: 'silent' });

async function bus(name: string) {
  const created = await createBus({ ...env.busOptions(name), logger, requestTimeoutMs: 500 });
  buses.push(created);
  return created;
}

/** Asks `slow` waiting `timeoutMs`, which must fail as unavailable: the details of that refusal. */
async function unavailableDetails(client: Bus, timeoutMs: number) {
  const error = await client.request(slow, {}, { identity: { kind: 'anonymous' }, timeoutMs }).catch((e: unknown) => e);
  expect((error as AppError).code).toBe('unavailable');
  return (error as AppError).details;
}

beforeAll(async () => {
  env = await createTestEnvironment({ withDatabase: false });
});
afterAll(async () => {
  for (const b of buses) await b.drain();
  await env.cleanup();
});

describe('bus request/reply', () => {
  it('carries identity and request id, and spreads requests over a queue group', async () => {
    const [a, b, client] = await Promise.all([bus('a'), bus('b'), bus('client')]);
    for (const [replica, server] of [
      ['a', a],
      ['b', b],
    ] as const) {
      server.serve(echo, (request, context) => ({
        text: request.text,
        replica,
        identityKind: context.identity.kind,
        requestId: context.requestId,
      }));
      await server.flush();
    }
    const replies = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        client.request(
          echo,
          { text: `m${i}` },
          { identity: { kind: 'service', service: 'jobs' }, requestId: `req-${i}` },
        ),
      ),
    );
    expect(replies.map((r) => r.text)).toEqual(Array.from({ length: 40 }, (_, i) => `m${i}`));
    expect(replies.every((r, i) => r.identityKind === 'service' && r.requestId === `req-${i}`)).toBe(true);
    // A queue group delivers each request to one member; both members take a share.
    expect(new Set(replies.map((r) => r.replica))).toEqual(new Set(['a', 'b']));
  });

  it('answers a request that breaks the contract with validation_failed, checked where it is served', async () => {
    const client = await bus('client2');
    const error = await client
      .request(echo, { text: 42 } as unknown as { text: string }, { identity: { kind: 'anonymous' } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('validation_failed');
  });

  it('turns no responders into unavailable at once', async () => {
    const client = await bus('client3');
    // A timeout far beyond the test's own: only the server saying nobody listens can answer in time, and
    // the reason names it.
    expect(await unavailableDetails(client, 600_000)).toMatchObject({ reason: 'no_responders' });
  });

  it('turns a handler that never answers into unavailable after the timeout', async () => {
    const [server, client] = await Promise.all([bus('slow-server'), bus('client4')]);
    server.serve(slow, () => new Promise(() => {}));
    await server.flush();
    expect(await unavailableDetails(client, 300)).toMatchObject({ reason: 'timeout' });
  });

  it('gives up the requests waiting for an answer when its connection closes, instead of waiting them out', async () => {
    const [server, client] = await Promise.all([bus('hanging-server'), bus('client-closing')]);
    server.serve(slow, () => new Promise(() => {}));
    await server.flush();
    const waiting = Array.from({ length: 3 }, () =>
      client.request(slow, {}, { identity: { kind: 'anonymous' }, timeoutMs: 600_000 }).catch((e: unknown) => e),
    );
    await client.flush();
    await client.connection.close();
    for (const error of await Promise.all(waiting)) {
      expect((error as AppError).code).toBe('unavailable');
      expect((error as AppError).details).toMatchObject({ reason: 'bus_error' });
    }
    // Answers keep flowing on a connection of its own after that: each request has its own reply subject.
    const other = await bus('client-after');
    server.serve(echo, (request) => ({ text: request.text, replica: 'x', identityKind: 'x', requestId: 'x' }));
    await server.flush();
    const replies = await Promise.all(
      ['one', 'two'].map((text) => other.request(echo, { text }, { identity: { kind: 'anonymous' } })),
    );
    expect(replies.map((r) => r.text)).toEqual(['one', 'two']);
  });

  it('passes an AppError through with its code, and hides other failures behind internal', async () => {
    const [server, client] = await Promise.all([bus('refuse-server'), bus('client5')]);
    server.serve(refuse, () => {
      throw new AppError('forbidden', 'not you');
    });
    server.serve(broken, () => ({ n: 'not a number' }) as unknown as { n: number });
    await server.flush();
    const refused = await client.request(refuse, {}, { identity: { kind: 'anonymous' } }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'forbidden', message: 'not you' });
    const contractBroken = await client
      .request(broken, {}, { identity: { kind: 'anonymous' } })
      .catch((e: unknown) => e);
    expect(contractBroken).toMatchObject({ code: 'internal' });
  });

  it('checks the reply a handler produced before sending it, so the serving side reports its own defect', async () => {
    const handled: Array<[string, string]> = [];
    const observer = {
      requestSent() {},
      requestHandled: (subject: string, _s: number, outcome: string) => void handled.push([subject, outcome]),
    };
    const server = await createBus({ ...env.busOptions('reply-checker'), logger, requestTimeoutMs: 500, observer });
    buses.push(server);
    const client = await bus('client-reply');
    server.serve(brokenReply, () => ({ n: 'not a number' }) as unknown as { n: number });
    await server.flush();
    const error = await client.request(brokenReply, {}, { identity: { kind: 'anonymous' } }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'internal' });
    // The observer hears of the request once its answer is sent.
    await vi.waitFor(() => expect(handled).toEqual([['settings.test.broken_reply', 'internal']]));
  });
});

describe('declared access, enforced by serve', () => {
  it('admits the callers the subject names and refuses the others before the handler runs', async () => {
    const [server, client] = await Promise.all([bus('access-server'), bus('access-client')]);
    let calls = 0;
    server.serve(teamScoped, (_request, context) => {
      calls++;
      return { teams: context.access.teams() };
    });
    server.serve(ownSatellite, () => ({}));
    await server.flush();
    const ask = (identity: CallerIdentity, teamId = 'team-a') =>
      client.request(teamScoped, { team_id: teamId }, { identity }).catch((e: AppError) => e.code);

    expect(await ask(member('team-a', 'team_user'))).toEqual({ teams: ['team-a'] });
    expect(await ask(member('team-b', 'team_admin'))).toBe('forbidden');
    expect(await ask({ kind: 'anonymous' })).toBe('unauthenticated');
    expect(await ask({ kind: 'service', service: 'jobs' })).toEqual({ teams: ['team-a'] });
    expect(await ask({ kind: 'service', service: 'settings' })).toBe('forbidden');
    expect(await ask({ kind: 'satellite', satellite_id: 's1', satellite_type: 'team', team_id: 'team-a' })).toBe(
      'forbidden',
    );
    expect(calls).toBe(2);

    const satellite = (id: string): CallerIdentity => ({
      kind: 'satellite',
      satellite_id: id,
      satellite_type: 'global',
      team_id: null,
    });
    await expect(client.request(ownSatellite, { satellite_id: 's1' }, { identity: satellite('s1') })).resolves.toEqual(
      {},
    );
    await expect(
      client.request(ownSatellite, { satellite_id: 's1' }, { identity: satellite('s2') }),
    ).rejects.toMatchObject({ code: 'forbidden', instructions: expect.any(String) });
  });

  it('never sends an identity naming a process that does not exist: no key may sign it', async () => {
    const [server, client] = await Promise.all([bus('access-server2'), bus('access-client2')]);
    server.serve(teamScoped, () => ({ teams: [] }));
    await server.flush();
    const forged = { kind: 'service', service: 'anything' } as unknown as CallerIdentity;
    await expect(client.request(teamScoped, { team_id: 't' }, { identity: forged })).rejects.toMatchObject({
      code: 'internal',
    });
  });
});

describe('broadcasts', () => {
  it('reach every listener, which may reply, and malformed ones are ignored', async () => {
    const [a, b, sender] = await Promise.all([bus('listener-a'), bus('listener-b'), bus('sender')]);
    const seen: Array<[string, number]> = [];
    for (const [name, listener] of [
      ['a', a],
      ['b', b],
    ] as const) {
      listener.listen(ping, ({ n }) => {
        seen.push([name, n]);
        return { replica: name };
      });
      await listener.flush();
    }
    const replies: string[] = [];
    const inbox = `_INBOX.${env.runId}`;
    const subscription = sender.connection.subscribe(inbox, {
      callback: (_error, msg) => {
        replies.push((msg.json() as { replica: string }).replica);
      },
    });
    sender.connection.publish(sender.subject(ping.subject), JSON.stringify({ n: 'bad' }));
    sender.broadcast(ping, { n: 1 }, { replyTo: inbox });
    expect(() => sender.broadcast(ping, { n: 'two' } as never)).toThrow(/breaks its contract/);
    await sender.flush();
    while (replies.length < 2) await new Promise((r) => setTimeout(r, 10));
    subscription.unsubscribe();
    expect(seen.sort()).toEqual([
      ['a', 1],
      ['b', 1],
    ]);
    expect(replies.sort()).toEqual(['a', 'b']);
  });
});
