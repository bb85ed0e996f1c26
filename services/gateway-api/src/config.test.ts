import { ConfigError, loadConfig } from '@orbital/config';
import { describe, expect, it } from 'vitest';
import { gatewayConfigSchema } from './config.ts';

/** The identity key variables every service requires; their format is checked where the keys are read. */
const identityKeys = { IDENTITY_SIGNING_KEY: 'k', IDENTITY_PUBLIC_KEYS: 'k' };
const load = (env: Record<string, string | undefined>) => loadConfig(gatewayConfigSchema, { ...identityKeys, ...env });

function problemsOf(env: Record<string, string>): string {
  try {
    load(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  return '';
}

describe('client metadata document settings', () => {
  it('are public https documents only by default', () => {
    const config = load({});
    expect(config.OAUTH_CLIENT_METADATA_DOCUMENTS).toBe(true);
    expect(config.OAUTH_CLIENT_METADATA_ALLOW_HTTP).toBe(false);
    expect(config.OAUTH_CLIENT_METADATA_ALLOWED_NETWORKS).toEqual([]);
  });

  it('read the networks an operator allows', () => {
    const config = load({ OAUTH_CLIENT_METADATA_ALLOWED_NETWORKS: '10.0.0.0/8, fd00::/8' });
    expect(config.OAUTH_CLIENT_METADATA_ALLOWED_NETWORKS).toEqual(['10.0.0.0/8', 'fd00::/8']);
  });

  it('refuse a network that is not one, naming the variable', () => {
    expect(problemsOf({ OAUTH_CLIENT_METADATA_ALLOWED_NETWORKS: '10.0.0.0/8,intranet' })).toContain(
      'OAUTH_CLIENT_METADATA_ALLOWED_NETWORKS: must be comma-separated IP addresses or CIDR blocks',
    );
  });

  it('refuse plain http documents with an https issuer (production)', () => {
    const message = problemsOf({
      OAUTH_ISSUER_URL: 'https://orbital.example.com',
      OAUTH_CLIENT_METADATA_ALLOW_HTTP: 'true',
    });
    expect(message).toContain('OAUTH_CLIENT_METADATA_ALLOW_HTTP: is for development only');
    expect(problemsOf({ OAUTH_ISSUER_URL: 'http://localhost:3000', OAUTH_CLIENT_METADATA_ALLOW_HTTP: 'true' })).toBe(
      '',
    );
  });
});

describe('TRUST_PROXY', () => {
  it.each([
    [undefined, false],
    ['false', false],
    ['true', 1],
    ['2', 2],
    ['10.0.0.0/8, 127.0.0.1', ['10.0.0.0/8', '127.0.0.1']],
  ])('reads %j as %j', (value, expected) => {
    const env = value === undefined ? {} : { TRUST_PROXY: value };
    expect(load(env).TRUST_PROXY).toEqual(expected);
  });

  it('refuses anything else, naming the variable', () => {
    expect(problemsOf({ TRUST_PROXY: 'the ingress' })).toContain(
      'TRUST_PROXY: must be false, true, a number of proxy hops, or proxy addresses and CIDR blocks',
    );
  });
});

describe('in production (NODE_ENV=production)', () => {
  const production: Record<string, string> = {
    NODE_ENV: 'production',
    POSTGRES_HOST: 'orbital-postgres-rw',
    POSTGRES_DATABASE: 'orbital',
    POSTGRES_USER: 'orbital',
    POSTGRES_PASSWORD: 'from the operator',
    NATS_URL: 'nats://orbital-nats:4222',
    NATS_NKEY_SEED: 'SUAseed',
    REDIS_URL: 'redis://:password@orbital-redis-master:6379',
    OAUTH_ISSUER_URL: 'https://orbital.example.org',
  };

  it('starts with every address given, and outside production on the development defaults', () => {
    expect(problemsOf(production)).toBe('');
    expect(load({}).OAUTH_ISSUER_URL).toBeUndefined();
  });

  it('refuses to start without the issuer, an engine or its NATS user, naming each', () => {
    for (const variable of Object.keys(production).filter((name) => name !== 'NODE_ENV')) {
      const { [variable]: _left, ...rest } = production;
      expect(problemsOf(rest), variable).toBe(
        `Invalid configuration:\n  - ${variable}: is required in production (NODE_ENV=production)`,
      );
    }
  });
});
