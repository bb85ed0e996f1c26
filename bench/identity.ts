/**
 * What a signed caller identity costs per request, in this process, without NATS: signing and verifying
 * a fresh token each time (the worst case: every request a different identity), and the usual case
 * where a sender reuses its token for the same subject and identity and the receiver remembers it.
 * Run: `npm run bench:identity`. Prints microseconds per operation (wall clock and process CPU).
 */
import { createPublicKey, generateKeyPairSync, sign, verify } from 'node:crypto';
import { createIdentitySigner, createIdentityVerifier, generateIdentityKey, parseIdentityKeys } from '@orbital/bus';
import type { CallerIdentity } from '@orbital/contracts';

const gateway = generateIdentityKey('gateway-api', 'bench');
const keys = parseIdentityKeys({ signingKeys: gateway.signingKey, publicKeys: gateway.publicKey });
const audience = 'settings.value.get';
const user = (n: number): CallerIdentity => ({
  kind: 'user',
  user_id: `user-${n}`,
  global_role: 'global_user',
  memberships: [{ team_id: 'team-1', role: 'team_admin' }],
});

async function time(label: string, count: number, run: (i: number) => Promise<unknown>) {
  for (let i = 0; i < Math.min(count, 500); i++) await run(-1 - i);
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < count; i++) await run(i);
  const wall = ((performance.now() - started) * 1000) / count;
  const used = process.cpuUsage(cpu);
  const cpuPer = (used.user + used.system) / count;
  console.log(`${label.padEnd(52)} ${wall.toFixed(1).padStart(7)} µs wall  ${cpuPer.toFixed(1).padStart(7)} µs CPU`);
}

const count = Number(process.env.BENCH_COUNT ?? 20000);
// Fresh signer and verifier per operation defeat both caches: the cost of the signature itself.
const fresh = await Promise.all(Array.from({ length: count }, (_, i) => createIdentitySigner(keys)(user(i), audience)));
await time('sign, a new identity every request', count, (i) => createIdentitySigner(keys)(user(i), audience));
await time('verify, a new token every request', count, (i) =>
  createIdentityVerifier(keys)(fresh[Math.abs(i) % count], audience),
);
const signer = createIdentitySigner(keys);
const verifier = createIdentityVerifier(keys);
await time('sign + verify, the same identity again (cached)', count, async () =>
  verifier(await signer(user(1), audience), audience),
);

// For comparison, in the same run: the bare Ed25519 check of a token-sized message.
const pair = generateKeyPairSync('ed25519');
const message = Buffer.from(fresh[0] ?? '');
const signature = sign(null, message, pair.privateKey);
const publicKey = createPublicKey(pair.privateKey);
await time('bare Ed25519 verify (node:crypto), for comparison', count, async () =>
  verify(null, message, publicKey, signature),
);
