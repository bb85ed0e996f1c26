import { defineSubject, emptyRequest } from '@orbital/contracts';
import { AppError } from '@orbital/errors';
import { createLogger } from '@orbital/logger';
import { createTestEnvironment, type TestEnvironment } from '@orbital/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type Bus, createBus } from '../src/index.ts';

const echo = defineSubject({
  subject: 'settings.test.echo',
  service: 'settings',
  description: 'test',
  request: z.object({ text: z.string() }),
  reply: z.object({ text: z.string(), replica: z.string(), identityKind: z.string(), requestId: z.string() }),
});
const slow = defineSubject({
  subject: 'settings.test.slow',
  service: 'settings',
  description: 'test',
  request: emptyRequest,
  reply: z.object({}),
});
const refuse = defineSubject({
  subject: 'settings.test.refuse',
  service: 'settings',
  description: 'test',
  request: emptyRequest,
  reply: z.object({}),
});
const broken = defineSubject({
  subject: 'settings.test.broken',
  service: 'settings',
  description: 'test',
  request: emptyRequest,
  reply: z.object({ n: z.number() }),
});

let env: TestEnvironment;
const buses: Bus[] = [];
const logger = createLogger({ name: 'bus-test', level: 'silent' });

async function bus(name: string) {
  const created = await createBus({
    servers: env.natsUrl,
    name,
    prefix: env.subjectPrefix,
    logger,
    requestTimeoutMs: 500,
  });
  buses.push(created);
  return created;
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
        client.request(echo, { text: `m${i}` }, { identity: { kind: 'service', service: 't' }, requestId: `req-${i}` }),
      ),
    );
    expect(replies.map((r) => r.text)).toEqual(Array.from({ length: 40 }, (_, i) => `m${i}`));
    expect(replies.every((r, i) => r.identityKind === 'service' && r.requestId === `req-${i}`)).toBe(true);
    // A queue group delivers each request to one member; both members take a share.
    expect(new Set(replies.map((r) => r.replica))).toEqual(new Set(['a', 'b']));
  });

  it('answers a request that breaks the contract with validation_failed', async () => {
    const client = await bus('client2');
    const error = await client
      .request(echo, { text: 42 } as unknown as { text: string }, { identity: { kind: 'anonymous' } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('validation_failed');
  });

  it('turns no responders into unavailable at once', async () => {
    const client = await bus('client3');
    const started = performance.now();
    const error = await client
      .request(slow, {}, { identity: { kind: 'anonymous' }, timeoutMs: 5000 })
      .catch((e: unknown) => e);
    expect((error as AppError).code).toBe('unavailable');
    expect((error as AppError).details).toMatchObject({ reason: 'no_responders' });
    // Well under the 5 s timeout: the server tells the client nobody listens.
    expect(performance.now() - started).toBeLessThan(4000);
  });

  it('turns a handler that never answers into unavailable after the timeout', async () => {
    const [server, client] = await Promise.all([bus('slow-server'), bus('client4')]);
    server.serve(slow, () => new Promise(() => {}));
    await server.flush();
    const error = await client
      .request(slow, {}, { identity: { kind: 'anonymous' }, timeoutMs: 300 })
      .catch((e: unknown) => e);
    expect((error as AppError).code).toBe('unavailable');
    expect((error as AppError).details).toMatchObject({ reason: 'timeout' });
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
});
