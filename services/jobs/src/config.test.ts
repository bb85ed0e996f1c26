import { ConfigError, loadConfig } from '@orbital/config';
import { describe, expect, it } from 'vitest';
import { configSchema } from './config.ts';

/** The identity key variables every service requires; their format is checked where the keys are read. */
const identityKeys = { IDENTITY_SIGNING_KEY: 'k', IDENTITY_PUBLIC_KEYS: 'k' };
const load = (env: Record<string, string | undefined>) => loadConfig(configSchema, { ...identityKeys, ...env });

describe('jobs configuration', () => {
  it('defaults to the schedules of the specification', () => {
    expect(load({})).toMatchObject({
      JOBS_CREDENTIAL_VALIDATION_EVERY_MS: 60_000,
      JOBS_TEMPLATE_HEALTH_EVERY_MS: 180_000,
      JOBS_LOG_CLEANUP_EVERY_MS: 600_000,
      JOBS_CREDENTIAL_ROTATION_MINUTES: 15,
      JOBS_LOG_LINES_KEPT: 100,
    });
  });

  it('names a bad schedule setting', () => {
    let error: unknown;
    try {
      load({ JOBS_LOG_CLEANUP_EVERY_MS: 'often', JOBS_LOG_LINES_KEPT: '0' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variables).toEqual(['JOBS_LOG_CLEANUP_EVERY_MS', 'JOBS_LOG_LINES_KEPT']);
  });
});
