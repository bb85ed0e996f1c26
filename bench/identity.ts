/**
 * What a signed caller identity costs per request. Each token is bound to the request it travels with
 * (subject, origin and body digest), so a sender reuses a token only for the very same request, and a
 * request with another body costs a signature and a check.
 *
 * In this process, without NATS: signing and verifying a fresh token each time (every request a new
 * token), the repeated request (the sender reuses its token and the receiver remembers it: what every
 * request of one identity and subject cost before tokens were bound to their request), and the digest.
 * Then the real path, beside it in the same run: requests over NATS (the machine's, or NATS_URL) from a
 * gateway-api bus to a settings bus through `bus.request` and `bus.serve`, the same request each time
 * and a different body each time.
 * Run: `npm run bench:identity` (BENCH_COUNT=20000, ROUND_TRIPS=3000). Prints microseconds per operation
 * (wall clock and this process's CPU, which holds both ends).
 */
import { createPublicKey, generateKeyPairSync, sign, verify } from 'node:crypto';
import {
  createBus,
  createIdentitySigner,
  createIdentityVerifier,
  parseIdentityKeys,
  requestDigest,
} from '@orbital/bus';
import { type CallerIdentity, defineSubject } from '@orbital/contracts';
import { createLogger } from '@orbital/logger';
import { createTestEnvironment, testIdentityKeys } from '@orbital/testing';
import { z } from 'zod';

// gateway-api's key of this run: the one its bus over NATS signs with below.
const keys = parseIdentityKeys(testIdentityKeys().of('gateway-api'));
const audience = 'settings.value.get';
const user = (n: number): CallerIdentity => ({
  kind: 'user',
  user_id: `user-${n}`,
  global_role: 'global_user',
  memberships: [{ team_id: 'team-1', role: 'team_admin' }],
});
const body = (n: number) => Buffer.from(JSON.stringify({ keys: ['global.enable_login'], n }));
const digestOf = (n: number) => requestDigest({ subject: audience, body: body(n) });

async function time(label: string, count: number, run: (i: number) => Promise<unknown>) {
  for (let i = 0; i < Math.min(count, 500); i++) await run(-1 - i);
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < count; i++) await run(i);
  const wall = ((performance.now() - started) * 1000) / count;
  const used = process.cpuUsage(cpu);
  const cpuPer = (used.user + used.system) / count;
  console.log(`${label.padEnd(60)} ${wall.toFixed(1).padStart(7)} µs wall  ${cpuPer.toFixed(1).padStart(7)} µs CPU`);
}

const count = Number(process.env.BENCH_COUNT ?? 20000);
// Fresh signer and verifier per operation defeat both caches: the cost of the signature itself.
const digests = Array.from({ length: count }, (_, i) => digestOf(i));
const fresh = await Promise.all(
  Array.from({ length: count }, (_, i) => createIdentitySigner(keys)(user(i), audience, digests[i] ?? '')),
);
await time('request digest (SHA-256 of a 60-byte body)', count, async (i) => digestOf(i));
await time('sign, a new token every request', count, (i) =>
  createIdentitySigner(keys)(user(i), audience, digests[Math.abs(i) % count] ?? ''),
);
await time('verify, a new token every request', count, (i) =>
  createIdentityVerifier(keys)(fresh[Math.abs(i) % count], audience, digests[Math.abs(i) % count] ?? ''),
);
const signer = createIdentitySigner(keys);
const verifier = createIdentityVerifier(keys);
const one = user(1);
await time('sign + verify, the same request again (cached)', count, async () => {
  const digest = digestOf(1);
  return verifier(await signer(one, audience, digest), audience, digest);
});
await time('sign + verify, same identity, another body each time', count, async (i) => {
  const digest = digestOf(i);
  return verifier(await signer(one, audience, digest), audience, digest);
});

// For comparison, in the same run: the bare Ed25519 check of a token-sized message.
const pair = generateKeyPairSync('ed25519');
const message = Buffer.from(fresh[0] ?? '');
const signature = sign(null, message, pair.privateKey);
const publicKey = createPublicKey(pair.privateKey);
await time('bare Ed25519 verify (node:crypto), for comparison', count, async () =>
  verify(null, message, publicKey, signature),
);

// The real path: bus.request to bus.serve over NATS, both ends in this process.
const roundTrips = Number(process.env.ROUND_TRIPS ?? 3000);
const echo = defineSubject({
  subject: 'settings.bench.echo',
  service: 'settings',
  description: 'bench: answers the number it was sent',
  access: { users: { kind: 'signed_in' } },
  request: z.object({ n: z.number() }),
  reply: z.object({ n: z.number() }),
});
const env = await createTestEnvironment({ withDatabase: false });
const logger = createLogger({ name: 'bench', level: 'silent' });
const busOf = (name: 'gateway-api' | 'settings') =>
  createBus({ servers: env.natsUrl, identity: testIdentityKeys().of(name), name, prefix: env.subjectPrefix, logger });
const [client, server] = await Promise.all([busOf('gateway-api'), busOf('settings')]);
try {
  server.serve(echo, (request) => ({ n: request.n }));
  await server.flush();
  await time('over NATS: the same request each time', roundTrips, () =>
    client.request(echo, { n: 1 }, { identity: one }),
  );
  await time('over NATS: another body each time (sign + verify each)', roundTrips, (i) =>
    client.request(echo, { n: i }, { identity: one }),
  );
} finally {
  await client.drain();
  await server.drain();
  await env.cleanup();
}
