import { createCipheriv, createDecipheriv, randomBytes, scryptSync, timingSafeEqual } from 'node:crypto';

/**
 * AES-256-GCM encryption of values at rest. The key is derived
 * from the service secret with scrypt and a fixed salt, so every replica derives the same key; each
 * encryption draws a fresh 12-byte IV; the caller's context (the setting key, the installation id) is
 * bound as additional authenticated data, so a ciphertext moved to another row fails to decrypt just
 * like a tampered one.
 *
 * Stored form: `v1:<iv>:<tag>:<ciphertext>`, each part base64url. The version prefix lets the format or
 * the key derivation change later without guessing.
 */
export type SecretBox = {
  encrypt(plaintext: string, context: string): string;
  decrypt(stored: string, context: string): string;
  /** True when the stored text has the envelope's shape (says nothing about its authenticity). */
  isEnvelope(stored: string): boolean;
};

export class DecryptionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DecryptionError';
  }
}

// A fixed scrypt salt, so that the key depends on the secret alone and every replica derives the same one;
// changing it makes every stored value unreadable.
const keySalt = Buffer.from('orbital.settings.encryption.v1');
const minimumSecretLength = 32;

export function createSecretBox(secret: string): SecretBox {
  if (secret.length < minimumSecretLength) {
    throw new Error(`the encryption secret must be at least ${minimumSecretLength} characters`);
  }
  const key = scryptSync(secret, keySalt, 32, { N: 16384, r: 8, p: 1 });
  return {
    encrypt(plaintext, context) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      const tag = cipher.getAuthTag();
      return ['v1', iv.toString('base64url'), tag.toString('base64url'), ciphertext.toString('base64url')].join(':');
    },
    decrypt(stored, context) {
      const parts = stored.split(':');
      if (parts.length !== 4 || parts[0] !== 'v1') throw new DecryptionError('not an encrypted value');
      const [, ivText, tagText, dataText] = parts as [string, string, string, string];
      const iv = Buffer.from(ivText, 'base64url');
      const tag = Buffer.from(tagText, 'base64url');
      if (iv.length !== 12 || tag.length !== 16) throw new DecryptionError('malformed encrypted value');
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, iv);
        decipher.setAAD(Buffer.from(context, 'utf8'));
        decipher.setAuthTag(tag);
        return Buffer.concat([decipher.update(Buffer.from(dataText, 'base64url')), decipher.final()]).toString('utf8');
      } catch {
        // GCM's authentication failed: wrong key, wrong context, or a changed byte. Never say which.
        throw new DecryptionError('the encrypted value failed authentication');
      }
    },
    isEnvelope: (stored) => /^v1:[A-Za-z0-9_-]{16}:[A-Za-z0-9_-]{22}:[A-Za-z0-9_-]*$/.test(stored),
  };
}

/** Round trip with a random value: proves the key works without revealing anything about it. */
export function checkSecretBox(box: SecretBox): { ok: boolean } {
  const probe = randomBytes(16).toString('hex');
  try {
    const back = box.decrypt(box.encrypt(probe, 'health-check'), 'health-check');
    return { ok: back.length === probe.length && timingSafeEqual(Buffer.from(back), Buffer.from(probe)) };
  } catch {
    return { ok: false };
  }
}
