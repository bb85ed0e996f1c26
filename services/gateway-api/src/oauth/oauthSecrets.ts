import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * What gateway-api hands out for OAuth: 256 random bits, base64url, after a prefix that says what the
 * secret is (so a leaked one is recognisable in a log or a repository scan, and a refresh token is
 * never mistaken for an access token). Only the SHA-256 of a secret is stored.
 */
export const secretPrefixes = {
  accessToken: 'orb_at_',
  refreshToken: 'orb_rt_',
  personalToken: 'orb_pat_',
  authorizationCode: 'orb_ac_',
  clientSecret: 'orb_cs_',
} as const;
export type SecretKind = keyof typeof secretPrefixes;

export function createSecret(kind: SecretKind): string {
  return `${secretPrefixes[kind]}${randomBytes(32).toString('base64url')}`;
}

export function hashSecret(secret: string): Buffer {
  return createHash('sha256').update(secret).digest();
}

const bodyShape = /^[A-Za-z0-9_-]{43}$/;

/** Whether `value` can be a secret of that kind: anything else is refused without a lookup. */
export function isSecretOf(kind: SecretKind, value: string): boolean {
  const prefix = secretPrefixes[kind];
  return value.startsWith(prefix) && bodyShape.test(value.slice(prefix.length));
}

/** Compares two secrets in constant time (their hashes, so lengths never leak either). */
export function secretsEqual(given: string, expected: string): boolean {
  return timingSafeEqual(hashSecret(given), hashSecret(expected));
}

/** PKCE S256 (RFC 7636 section 4.6): base64url(SHA-256(ASCII(code_verifier))) equals the challenge. */
export function pkceS256Matches(verifier: string, challenge: string): boolean {
  const computed = createHash('sha256').update(verifier, 'ascii').digest('base64url');
  return computed.length === challenge.length && timingSafeEqual(Buffer.from(computed), Buffer.from(challenge));
}

/** RFC 7636 section 4.1: 43 to 128 characters of [A-Z a-z 0-9 - . _ ~]. */
export const codeVerifierShape = /^[A-Za-z0-9._~-]{43,128}$/;
/** An S256 challenge is the base64url of 32 bytes: 43 characters. */
export const codeChallengeShape = /^[A-Za-z0-9_-]{43}$/;
