import argon2 from 'argon2';

/**
 * Argon2id with the library's defaults (64 MiB, 3 passes, 4 lanes: about 100 ms here). Run once per
 * login, never per request: sessions are checked by a SHA-256 lookup instead.
 */
export function hashPassword(password: string): Promise<string> {
  return argon2.hash(password, { type: argon2.argon2id });
}

export async function verifyPassword(hash: string, password: string): Promise<boolean> {
  try {
    return await argon2.verify(hash, password);
  } catch {
    // A malformed stored hash is a failed login, not a server error that tells an attacker anything.
    return false;
  }
}

let decoyHash: Promise<string> | null = null;

/**
 * Verifies against a hash of a random password. Used when the account does not exist, so a login for
 * an unknown e-mail address costs the same time as one for a known address (no account enumeration).
 */
export async function verifyAgainstDecoy(password: string): Promise<false> {
  decoyHash ??= hashPassword(crypto.randomUUID());
  await verifyPassword(await decoyHash, password);
  return false;
}
