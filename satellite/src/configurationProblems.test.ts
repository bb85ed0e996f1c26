import { loadConfig } from '@orbital/config';
import { describe, expect, it } from 'vitest';
import { configurationProblems, satelliteConfig, satelliteEnv, satelliteTypeOf } from './config.ts';

const problemsOf = (env: Record<string, string>) => configurationProblems(loadConfig(satelliteEnv, env));

describe('the satellite configuration rules', () => {
  it('is global without a team id and team with one, unless told', () => {
    expect(satelliteTypeOf(loadConfig(satelliteEnv, {}))).toBe('global');
    expect(satelliteTypeOf(loadConfig(satelliteEnv, { SATELLITE_TEAM_ID: 't' }))).toBe('team');
    expect(satelliteTypeOf(loadConfig(satelliteEnv, { SATELLITE_TEAM_ID: 't', SATELLITE_TYPE: 'global' }))).toBe(
      'global',
    );
  });

  it('refuses a global satellite without authentication unless explicitly allowed', () => {
    expect(problemsOf({}).map((p) => p.variable)).toEqual(['SATELLITE_AUTH_MODE']);
    expect(problemsOf({ SATELLITE_ALLOW_UNAUTHENTICATED_GLOBAL: 'true' })).toEqual([]);
    expect(problemsOf({ SATELLITE_TEAM_ID: 't' })).toEqual([]);
    expect(() => loadConfig(satelliteConfig, {})).toThrow(/SATELLITE_AUTH_MODE: a global satellite serves every team/);
  });

  it('needs the URLs and the backend link in oauth mode, and a team for a team satellite', () => {
    expect(problemsOf({ SATELLITE_AUTH_MODE: 'oauth' }).map((p) => p.variable)).toEqual([
      'SATELLITE_PUBLIC_URL',
      'SATELLITE_AUTH_SERVER_URL',
      'BACKEND_URL',
    ]);
    expect(
      problemsOf({
        SATELLITE_AUTH_MODE: 'oauth',
        SATELLITE_PUBLIC_URL: 'https://sat.test/mcp',
        SATELLITE_AUTH_SERVER_URL: 'https://api.test',
        BACKEND_URL: 'https://api.test',
      }),
    ).toEqual([]);
    expect(problemsOf({ SATELLITE_TYPE: 'team' }).map((p) => p.variable)).toEqual(['SATELLITE_TEAM_ID']);
  });

  it('needs the shared secret for a replica address, and a secret long enough', () => {
    const team = { SATELLITE_TEAM_ID: 't' };
    expect(problemsOf({ ...team, SATELLITE_REPLICA_URL: 'http://10.0.0.7:3001' }).map((p) => p.variable)).toEqual([
      'SATELLITE_REPLICA_SECRET',
    ]);
    expect(
      problemsOf({ ...team, SATELLITE_REPLICA_URL: 'http://10.0.0.7:3001', SATELLITE_REPLICA_SECRET: 'x'.repeat(32) }),
    ).toEqual([]);
    expect(() => loadConfig(satelliteEnv, { ...team, SATELLITE_REPLICA_SECRET: 'short' })).toThrow(
      /SATELLITE_REPLICA_SECRET/,
    );
    expect(() => loadConfig(satelliteEnv, { ...team, SATELLITE_REPLICA_URL: 'ftp://10.0.0.7/' })).toThrow(
      /SATELLITE_REPLICA_URL/,
    );
  });
});
