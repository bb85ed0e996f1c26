import { describe, expect, it } from 'vitest';
import { satelliteKeyDigest } from './satelliteKeyDigest.ts';

describe('satelliteKeyDigest', () => {
  const secret = 'x'.repeat(43);

  it('is the same for the same key and different for another secret or another key id', () => {
    const digest = satelliteKeyDigest('sk_000000000000000000000001', secret);
    expect(digest).toMatch(/^sha256:[A-Za-z0-9_-]{43}$/);
    expect(satelliteKeyDigest('sk_000000000000000000000001', secret)).toBe(digest);
    expect(satelliteKeyDigest('sk_000000000000000000000001', `${'x'.repeat(42)}y`)).not.toBe(digest);
    expect(satelliteKeyDigest('sk_000000000000000000000002', secret)).not.toBe(digest);
  });

  it('holds neither the secret nor the key id', () => {
    const digest = satelliteKeyDigest('sk_000000000000000000000001', secret);
    expect(digest).not.toContain(secret.slice(0, 8));
    expect(digest).not.toContain('sk_');
  });
});
