import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { envBoolean, postgresEnv } from './commonEnv.ts';
import { ConfigError, loadConfig } from './loadConfig.ts';
import { requireInProduction } from './requireInProduction.ts';

describe('loadConfig', () => {
  const schema = z.object({
    SECRET: z.string().min(32),
    PORT: z.coerce.number().int(),
    MODE: z.enum(['a', 'b']),
    FLAG: envBoolean.default(false),
  });

  it('names every bad or missing variable and never repeats a value', () => {
    const secretValue = 'short-secret-value';
    let error: unknown;
    try {
      loadConfig(schema, { SECRET: secretValue, PORT: 'eighty', MODE: 'c' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const configError = error as ConfigError;
    expect(configError.variables).toEqual(['SECRET', 'PORT', 'MODE']);
    expect(configError.message).not.toContain(secretValue);
    expect(configError.message).not.toContain('eighty');
    expect(configError.message).toContain('MODE: must be one of "a", "b"');
  });

  it('reports a missing variable as required', () => {
    expect(() => loadConfig(schema, { PORT: '1', MODE: 'a' })).toThrow(/SECRET: is required/);
  });

  it("reads 'false' as false and treats empty strings as unset", () => {
    const parsed = loadConfig(schema, { SECRET: 'x'.repeat(32), PORT: '1', MODE: 'a', FLAG: 'false' });
    expect(parsed.FLAG).toBe(false);
    const withEmpty = loadConfig(schema, { SECRET: 'x'.repeat(32), PORT: '1', MODE: 'a', FLAG: '' });
    expect(withEmpty.FLAG).toBe(false);
  });

  it('leaves the database unconfigured until host, database and user are given', () => {
    expect(loadConfig(postgresEnv, {})).toMatchObject({ POSTGRES_PORT: 5432, POSTGRES_SSL: false });
    expect(loadConfig(postgresEnv, {}).POSTGRES_HOST).toBeUndefined();
    expect(loadConfig(postgresEnv, { POSTGRES_SSL: 'true' }).POSTGRES_SSL).toBe(true);
  });
});

describe('variables required in production', () => {
  const schema = requireInProduction(
    z.object({ NATS_URL: z.string().default('nats://127.0.0.1:4222'), SECRET: z.string().min(4) }),
    ['NATS_URL'],
  );

  it('keeps the development default outside production', () => {
    expect(loadConfig(schema, { SECRET: 'long enough' }).NATS_URL).toBe('nats://127.0.0.1:4222');
    expect(loadConfig(schema, { SECRET: 'long enough', NODE_ENV: 'test' }).NATS_URL).toBe('nats://127.0.0.1:4222');
  });

  it('refuses to start in production without them, naming each beside the other problems', () => {
    expect(() => loadConfig(schema, { SECRET: 'long enough', NODE_ENV: 'production' })).toThrow(
      /NATS_URL: is required in production \(NODE_ENV=production\)/,
    );
    let error: unknown;
    try {
      loadConfig(schema, { NODE_ENV: 'production', NATS_URL: '' });
    } catch (e) {
      error = e;
    }
    expect((error as ConfigError).variables).toEqual(['SECRET', 'NATS_URL']);
  });

  it('accepts them when given', () => {
    const env = { SECRET: 'long enough', NODE_ENV: 'production', NATS_URL: 'nats://nats:4222' };
    expect(loadConfig(schema, env).NATS_URL).toBe('nats://nats:4222');
  });
});
