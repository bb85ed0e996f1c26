import type { CallerIdentity } from '@orbital/contracts';
import { describe, expect, it } from 'vitest';
import {
  createIdentitySigner,
  createIdentityVerifier,
  generateIdentityKey,
  parseIdentityKeys,
  requestDigest,
} from './index.ts';

/**
 * A token bound to its request, checked by a receiver that never saw it (another replica) and by one that
 * checked it before (its cache): neither takes it for another request. The bus test covers the same over NATS.
 */
const key = generateIdentityKey('gateway-api', 'unit');
const keys = parseIdentityKeys({ signingKeys: key.signingKey, publicKeys: key.publicKey });
const person: CallerIdentity = { kind: 'user', user_id: 'u1', global_role: 'global_user', memberships: [] };
const subject = 'settings.value.get';
const asked = requestDigest({ subject, body: Buffer.from('{"keys":["a"]}') });
const other = requestDigest({ subject, body: Buffer.from('{"keys":["smtp.password"]}') });
const refusal = { code: 'unauthenticated', message: 'The signed identity was made for another request' };

describe('identity tokens bound to their request', () => {
  it('tells requests apart by subject, origin and body, and not by where one part ends', () => {
    const body = Buffer.from('{}');
    const digests = new Set([
      requestDigest({ subject, body }),
      requestDigest({ subject: `${subject}x`, body }),
      requestDigest({ subject, origin: 'o', body }),
      requestDigest({ subject, body: Buffer.from('{ }') }),
      // The same bytes split differently between the parts.
      requestDigest({ subject: 'ab', origin: 'c', body }),
      requestDigest({ subject: 'a', origin: 'bc', body }),
    ]);
    expect(digests.size).toBe(6);
    expect(requestDigest({ subject, origin: undefined, body })).toBe(requestDigest({ subject, origin: '', body }));
  });

  it('refuses a token with another request on a receiver that never saw it, and on one that did', async () => {
    const token = await createIdentitySigner(keys)(person, subject, asked);
    await expect(createIdentityVerifier(keys)(token, subject, other)).rejects.toMatchObject(refusal);

    const verifier = createIdentityVerifier(keys);
    await expect(verifier(token, subject, asked)).resolves.toEqual(person);
    await expect(verifier(token, subject, other)).rejects.toMatchObject(refusal);
    await expect(verifier(token, subject, asked)).resolves.toEqual(person);
  });

  it('signs each request apart and reuses a token only for the very same one', async () => {
    const signer = createIdentitySigner(keys);
    const first = await signer(person, subject, asked);
    expect(await signer(person, subject, asked)).toBe(first);
    expect(await signer(person, subject, other)).not.toBe(first);
  });
});
