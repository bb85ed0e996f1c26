import { createPrivateKey } from 'node:crypto';
import { connect, type NatsConnection, headers as natsHeaders } from '@nats-io/transport-node';
import { type CallerIdentity, defineSubject, headerNames } from '@orbital/contracts';
import { AppError } from '@orbital/errors';
import { createLogger } from '@orbital/logger';
import { createTestEnvironment, type TestEnvironment, testIdentityKeys } from '@orbital/testing';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type Bus, createBus, generateIdentityKey, requestDigest } from '../src/index.ts';

/** Served by "settings"; people may call it, and the installations service with its own identity. */
const whoAmI = defineSubject({
  subject: 'settings.test.who_am_i',
  service: 'settings',
  description: 'test',
  access: { users: { kind: 'signed_in' }, services: ['installations'] },
  request: z.object({}),
  reply: z.object({ kind: z.string() }),
});

const admin: CallerIdentity = { kind: 'user', user_id: 'u1', global_role: 'global_admin', memberships: [] };

let env: TestEnvironment;
let server: Bus;
let raw: NatsConnection;
const buses: Bus[] = [];
const logger = createLogger({ name: 'identity-test', level: 'silent' });
/** Identities that reached the handler: every refused request must leave this unchanged. */
const handled: CallerIdentity[] = [];

async function busAs(identity: { signingKeys: string; publicKeys: string }, name: string) {
  const created = await createBus({
    servers: env.natsUrl,
    identity,
    name,
    prefix: env.subjectPrefix,
    logger,
    requestTimeoutMs: 2000,
  });
  buses.push(created);
  return created;
}

const whoAmIWire = () => `${env.subjectPrefix}.${whoAmI.subject}`;

/** A request as any client could send it, straight on NATS, with whatever identity header and body it likes. */
async function rawRequest(
  identityHeader?: string,
  body = '{}',
  origin?: string,
): Promise<{ ok: boolean; error?: { code: string; message: string } }> {
  const hdrs = natsHeaders();
  if (identityHeader !== undefined) hdrs.set(headerNames.identity, identityHeader);
  if (origin !== undefined) hdrs.set(headerNames.origin, origin);
  const reply = await raw.request(whoAmIWire(), body, { timeout: 2000, headers: hdrs });
  return reply.json();
}

/** A token signed with the seed of a key text `<process>:<kid>:<seed>`, with the claims given. */
async function token(
  keyText: string,
  claims: {
    identity: CallerIdentity;
    issuer: string;
    audience?: string;
    issuedAt?: number;
    expires?: number;
    /** The request it is bound to: rawRequest's `{}` to who_am_i unless given. */
    digest?: string | null;
  },
  kid?: string,
) {
  const [, ownKid, seed] = keyText.split(':');
  const key = createPrivateKey({
    key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), Buffer.from(seed ?? '', 'base64url')]),
    format: 'der',
    type: 'pkcs8',
  });
  const now = Math.floor(Date.now() / 1000);
  const digest =
    claims.digest === undefined
      ? requestDigest({ subject: whoAmIWire(), body: Buffer.from('{}') })
      : (claims.digest ?? undefined);
  return new SignJWT({ idt: claims.identity, ...(digest ? { req: digest } : {}) })
    .setProtectedHeader({ alg: 'EdDSA', kid: kid ?? ownKid ?? '' })
    .setIssuer(claims.issuer)
    .setAudience(claims.audience ?? `${env.subjectPrefix}.${whoAmI.subject}`)
    .setIssuedAt(claims.issuedAt ?? now)
    .setExpirationTime(claims.expires ?? now + 60)
    .sign(key);
}

beforeAll(async () => {
  env = await createTestEnvironment({ withDatabase: false });
  const keys = testIdentityKeys();
  server = await busAs(keys.of('settings'), 'settings');
  server.serve(whoAmI, (_request, context) => {
    handled.push(context.identity);
    return { kind: context.identity.kind };
  });
  await server.flush();
  raw = await connect({ servers: env.natsUrl, noAsyncTraces: true });
});

afterAll(async () => {
  await raw?.close();
  for (const bus of buses) await bus.drain();
  await env.cleanup();
});

describe('signed caller identities', () => {
  it('serves a request whose identity its sender may vouch for', async () => {
    const gateway = await busAs(testIdentityKeys().of('gateway-api'), 'gateway-api');
    const installations = await busAs(testIdentityKeys().of('installations'), 'installations');
    await expect(gateway.request(whoAmI, {}, { identity: admin })).resolves.toEqual({ kind: 'user' });
    await expect(
      installations.request(whoAmI, {}, { identity: { kind: 'service', service: 'installations' } }),
    ).resolves.toEqual({ kind: 'service' });
    expect(handled).toHaveLength(2);
  });

  it('refuses, before any handler runs, a request without an identity or with one written by hand', async () => {
    const before = handled.length;
    expect(await rawRequest()).toMatchObject({ ok: false, error: { code: 'unauthenticated' } });
    expect(await rawRequest(JSON.stringify({ kind: 'service', service: 'settings' }))).toMatchObject({
      ok: false,
      error: { code: 'unauthenticated' },
    });
    expect(await rawRequest(JSON.stringify(admin))).toMatchObject({ ok: false, error: { code: 'unauthenticated' } });
    expect(await rawRequest('not.a.token')).toMatchObject({ ok: false, error: { code: 'unauthenticated' } });
    expect(handled.length).toBe(before);
  });

  it("refuses an identity signed with a key it does not trust, even under a trusted key's id", async () => {
    const before = handled.length;
    const stranger = generateIdentityKey('gateway-api', 'gateway-api-test');
    const forged = await token(stranger.signingKey, { identity: admin, issuer: 'gateway-api' });
    expect(await rawRequest(forged)).toMatchObject({ ok: false, error: { code: 'unauthenticated' } });
    const unknownKid = generateIdentityKey('gateway-api', 'somebody-else');
    const unknown = await token(unknownKid.signingKey, { identity: admin, issuer: 'gateway-api' });
    expect(await rawRequest(unknown)).toMatchObject({ ok: false, error: { code: 'unauthenticated' } });
    expect(handled.length).toBe(before);
  });

  it('refuses an expired identity, and one made for another subject', async () => {
    const before = handled.length;
    const gatewayKey = testIdentityKeys().of('gateway-api').signingKeys;
    const now = Math.floor(Date.now() / 1000);
    const expired = await token(gatewayKey, {
      identity: admin,
      issuer: 'gateway-api',
      issuedAt: now - 120,
      expires: now - 60,
    });
    const expiredReply = await rawRequest(expired);
    expect(expiredReply).toMatchObject({ ok: false, error: { code: 'unauthenticated' } });
    const elsewhere = await token(gatewayKey, {
      identity: admin,
      issuer: 'gateway-api',
      audience: `${env.subjectPrefix}.settings.value.get`,
    });
    expect(await rawRequest(elsewhere)).toMatchObject({ ok: false, error: { code: 'unauthenticated' } });
    // A token that would stay good for hours is not accepted either: identities are short-lived.
    const longLived = await token(gatewayKey, { identity: admin, issuer: 'gateway-api', expires: now + 3600 * 24 });
    expect(await rawRequest(longLived)).toMatchObject({ ok: false, error: { code: 'unauthenticated' } });
    expect(handled.length).toBe(before);
    // The genuine article still passes, so the refusals above are about the token and nothing else.
    expect(await rawRequest(await token(gatewayKey, { identity: admin, issuer: 'gateway-api' }))).toMatchObject({
      ok: true,
    });
  });

  it('refuses a captured identity sent again with another body, origin or subject, or bound to no request', async () => {
    const gateway = await busAs(testIdentityKeys().of('gateway-api'), 'gateway-api-replayed');
    // Whoever can listen on the subject sees the genuine request as it went by.
    const wire = raw.subscribe(whoAmIWire(), { max: 1 });
    const seen = (async () => {
      for await (const msg of wire) return { token: msg.headers?.get(headerNames.identity) ?? '', body: msg.string() };
      throw new Error('nothing seen');
    })();
    await raw.flush();
    await expect(gateway.request(whoAmI, {}, { identity: admin })).resolves.toEqual({ kind: 'user' });
    const captured = await seen;
    expect(captured.token).not.toBe('');

    const before = handled.length;
    const replies = [
      await rawRequest(captured.token, JSON.stringify({ anything: 'else' })),
      await rawRequest(captured.token, '{ }'),
      await rawRequest(captured.token, captured.body, Buffer.from('{"ip":"203.0.113.9"}').toString('base64url')),
    ];
    for (const reply of replies) {
      expect(reply).toMatchObject({
        ok: false,
        error: { code: 'unauthenticated', message: 'The signed identity was made for another request' },
      });
    }
    // A token made without a request digest is not accepted either, however well signed.
    const gatewayKey = testIdentityKeys().of('gateway-api').signingKeys;
    const unbound = await token(gatewayKey, { identity: admin, issuer: 'gateway-api', digest: null });
    expect(await rawRequest(unbound)).toMatchObject({
      ok: false,
      error: { code: 'unauthenticated', message: 'The signed identity is not bound to a request' },
    });
    expect(handled.length).toBe(before);
    // The same request sent again, byte for byte, is still the request the token vouches for.
    expect(await rawRequest(captured.token, captured.body)).toMatchObject({ ok: true });
  });

  it("refuses a service's key speaking for a person or for another service", async () => {
    const before = handled.length;
    const jobsKey = testIdentityKeys().of('jobs').signingKeys;
    const asUser = await token(jobsKey, { identity: admin, issuer: 'gateway-api' });
    expect(await rawRequest(asUser)).toMatchObject({ ok: false, error: { code: 'unauthenticated' } });
    const asJobsForUser = await token(jobsKey, { identity: admin, issuer: 'jobs' });
    expect(await rawRequest(asJobsForUser)).toMatchObject({ ok: false, error: { code: 'unauthenticated' } });
    const asInstallations = await token(jobsKey, {
      identity: { kind: 'service', service: 'installations' },
      issuer: 'installations',
    });
    expect(await rawRequest(asInstallations)).toMatchObject({ ok: false, error: { code: 'unauthenticated' } });
    expect(handled.length).toBe(before);
  });

  it('will not sign, in a process, an identity that process cannot vouch for', async () => {
    const installations = await busAs(testIdentityKeys().of('installations'), 'installations-2');
    const refused = await installations.request(whoAmI, {}, { identity: admin }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).code).toBe('internal');
  });
});
