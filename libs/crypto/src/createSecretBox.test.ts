import { describe, expect, it } from 'vitest';
import { checkSecretBox, createSecretBox, DecryptionError } from './createSecretBox.ts';

const secret = 'a-test-secret-that-is-long-enough-1234';

describe('createSecretBox', () => {
  const box = createSecretBox(secret);

  it('round-trips, and never stores the plaintext or the same ciphertext twice', () => {
    const a = box.encrypt('smtp-password', 'smtp.password');
    const b = box.encrypt('smtp-password', 'smtp.password');
    expect(a).not.toContain('smtp-password');
    expect(a).not.toBe(b);
    expect(box.decrypt(a, 'smtp.password')).toBe('smtp-password');
    expect(box.isEnvelope(a)).toBe(true);
  });

  it('detects a flipped byte anywhere in the ciphertext or tag', () => {
    const stored = box.encrypt('value', 'k');
    const [v, iv, tag, data] = stored.split(':') as [string, string, string, string];
    const flip = (text: string) => {
      const bytes = Buffer.from(text, 'base64url');
      bytes[0] = (bytes[0] ?? 0) ^ 0x01;
      return bytes.toString('base64url');
    };
    for (const tampered of [
      [v, iv, tag, flip(data)],
      [v, iv, flip(tag), data],
      [v, flip(iv), tag, data],
    ]) {
      expect(() => box.decrypt(tampered.join(':'), 'k')).toThrow(DecryptionError);
    }
  });

  it('binds a value to its context and its key', () => {
    const stored = box.encrypt('value', 'smtp.password');
    expect(() => box.decrypt(stored, 'repohost.oauth.client_secret')).toThrow(DecryptionError);
    expect(() => createSecretBox(`${secret}-other`).decrypt(stored, 'smtp.password')).toThrow(DecryptionError);
  });

  it('refuses a short secret and reports health by round trip', () => {
    expect(() => createSecretBox('short')).toThrow(/at least 32 characters/);
    expect(checkSecretBox(box)).toEqual({ ok: true });
  });
});
