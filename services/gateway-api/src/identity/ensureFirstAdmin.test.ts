import { ConfigError } from '@orbital/config';
import { describe, expect, it } from 'vitest';
import { firstAdminFromConfig } from './ensureFirstAdmin.ts';

const name = 'Administrator';

describe('firstAdminFromConfig', () => {
  it('is null when neither variable is set: there are no default credentials', () => {
    expect(firstAdminFromConfig({ ADMIN_NAME: name })).toBeNull();
  });

  it('takes a strong password', () => {
    expect(
      firstAdminFromConfig({
        ADMIN_EMAIL: 'ops@example.com',
        ADMIN_PASSWORD: 'a long pass phrase here',
        ADMIN_NAME: name,
      }),
    ).toEqual({ email: 'ops@example.com', password: 'a long pass phrase here', name });
  });

  it.each([
    [{ ADMIN_EMAIL: 'ops@example.com' }, 'ADMIN_PASSWORD', /is required/],
    [{ ADMIN_PASSWORD: 'a long pass phrase here' }, 'ADMIN_EMAIL', /is required/],
    [{ ADMIN_EMAIL: 'ops@example.com', ADMIN_PASSWORD: 'changeme' }, 'ADMIN_PASSWORD', /too weak.*at least 12/],
    [{ ADMIN_EMAIL: 'ops@example.com', ADMIN_PASSWORD: 'Welcome2025!!' }, 'ADMIN_PASSWORD', /too weak/],
  ])('refuses %j naming %s and never the password', (env, variable, message) => {
    let error: unknown;
    try {
      firstAdminFromConfig({ ...env, ADMIN_NAME: name });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variables).toEqual([variable]);
    expect((error as Error).message).toMatch(message);
    if ('ADMIN_PASSWORD' in env) expect((error as Error).message).not.toContain(env.ADMIN_PASSWORD);
  });
});
