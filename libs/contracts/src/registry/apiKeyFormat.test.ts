import { describe, expect, it } from 'vitest';
import { parseApiKey } from './apiKeyFormat.ts';

const secret = `${'A'.repeat(40)}_-z`;

describe('parseApiKey', () => {
  it('splits a well-formed key into its id and secret', () => {
    expect(parseApiKey(`sk_0123456789abcdef01234567.${secret}`)).toEqual({
      keyId: 'sk_0123456789abcdef01234567',
      secret,
    });
  });

  it.each([
    ['no dot', `sk_0123456789abcdef01234567${secret}`],
    ['a short id', `sk_0123.${secret}`],
    ['an id with a wildcard', `sk_0123456789abcdef0123456*.${secret}`],
    ['a short secret', 'sk_0123456789abcdef01234567.abc'],
    ['a second dot', `sk_0123456789abcdef01234567.${secret.slice(1)}.`],
    ['nothing', ''],
  ])('refuses %s', (_name, key) => {
    expect(parseApiKey(key)).toBeNull();
  });
});
