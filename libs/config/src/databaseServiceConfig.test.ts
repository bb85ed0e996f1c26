import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { databaseServiceConfig } from './databaseServiceConfig.ts';
import { ConfigError, loadConfig } from './loadConfig.ts';

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(databaseServiceConfig({ OWN_SECRET: z.string().min(4) }), env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return [...(error as ConfigError).variables];
  }
  return [];
}

describe('databaseServiceConfig', () => {
  it("reads the service's own variables beside those of NATS", () => {
    expect(problemsOf({})).toEqual(expect.arrayContaining(['OWN_SECRET', 'IDENTITY_SIGNING_KEY']));
    expect(problemsOf({ OWN_SECRET: 'long enough' })).not.toContain('OWN_SECRET');
  });

  it('refuses to start in production without the database and NATS addresses', () => {
    const production = problemsOf({ OWN_SECRET: 'long enough', NODE_ENV: 'production' });
    expect(production).toEqual(
      expect.arrayContaining(['POSTGRES_HOST', 'POSTGRES_DATABASE', 'POSTGRES_USER', 'POSTGRES_PASSWORD', 'NATS_URL']),
    );
    expect(problemsOf({ OWN_SECRET: 'long enough' })).not.toContain('POSTGRES_HOST');
  });
});
