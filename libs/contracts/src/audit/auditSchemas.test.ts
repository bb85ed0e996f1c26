import { describe, expect, it } from 'vitest';
import { auditDetails, secretDetailPaths } from './auditSchemas.ts';

describe('audit details', () => {
  it('refuse keys that name a secret, at any depth, and keep ids and names', () => {
    expect(secretDetailPaths({ token_id: 't', name: 'n', key: 'smtp.password', encrypted: true })).toEqual([]);
    expect(secretDetailPaths({ client_secret: 'x', nested: [{ password: 'y' }], api_key: 'z', token: 'w' })).toEqual([
      'client_secret',
      'nested.0.password',
      'api_key',
      'token',
    ]);
    expect(auditDetails.safeParse({ refresh_token: 'r' }).success).toBe(false);
    expect(auditDetails.safeParse({ text: 'x'.repeat(9000) }).success).toBe(false);
  });
});
