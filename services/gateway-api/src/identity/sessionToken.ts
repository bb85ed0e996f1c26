import { createHash, randomBytes } from 'node:crypto';

/** A session token: 256 random bits, base64url. Only its SHA-256 is stored. */
export function createSessionToken(): string {
  return randomBytes(32).toString('base64url');
}

export function hashSessionToken(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

const tokenShape = /^[A-Za-z0-9_-]{43}$/;

/** Rejects anything that cannot be a token before it costs a lookup. */
export function isWellFormedSessionToken(value: string): boolean {
  return tokenShape.test(value);
}
