import {
  type CallerIdentity,
  type InstallationConfigRecord,
  installationsConfigForSatelliteSubject,
  type UserIdentity,
} from '@orbital/contracts';
import type { Logger } from '@orbital/logger';
import { type ServiceUnderTest, startServiceUnderTest, type TestBuses, type TestEnvironment } from '@orbital/testing';
import pg from 'pg';
import { createApp, type RegistryApp } from '../src/app.ts';
import { configSchema } from '../src/config.ts';
import type { RegistryDeps } from '../src/domain/registryDeps.ts';

/** A clock the tests move, for token expiry, command leases and command expiry. */
export type TestClock = { now: Date; advance(ms: number): void };

export type RegistryUnderTest = {
  registry: ServiceUnderTest<RegistryApp>;
  clock: TestClock;
  /** What the stand-in installations service serves to `installations.config.for_satellite`. */
  installations: InstallationConfigRecord[];
  installationRequests: Array<{ team_ids: string[] | null }>;
};

/**
 * The registry on a test stack's buses, migrated, with a clock the tests move, and a stand-in for the
 * one installations subject it calls (satellite configuration). Used by the registry's own tests and by
 * gateway-api's satellite stack, which puts its HTTP routes in front of it.
 */
export async function startRegistryUnderTest(options: {
  env: TestEnvironment;
  buses: TestBuses;
  logger: Logger;
  leaseMs?: number;
  defaultCommandExpiryMs?: number;
  /** More of the registry's environment (a database address through a proxy a test cuts). */
  configEnv?: Record<string, string>;
  /** Bounds of registration's Argon2 queue other than the production ones. */
  registrationHashing?: RegistryDeps['registrationHashing'];
}): Promise<RegistryUnderTest> {
  const clock: TestClock = {
    now: new Date(),
    advance(ms: number) {
      clock.now = new Date(clock.now.getTime() + ms);
    },
  };
  const registry = await startServiceUnderTest({
    env: options.env,
    name: 'registry',
    logger: options.logger,
    buses: options.buses,
    configSchema,
    configEnv: {
      ...options.configEnv,
      COMMAND_LEASE_MS: String(options.leaseMs ?? 60000),
      ...(options.defaultCommandExpiryMs ? { COMMAND_DEFAULT_EXPIRY_MS: String(options.defaultCommandExpiryMs) } : {}),
    },
    create: (deps) =>
      createApp({
        ...deps,
        now: () => clock.now,
        // Argon2id still, with a smaller memory cost so a test run registers satellites quickly.
        argon2Options: { memoryCost: 8192, timeCost: 2, parallelism: 1 },
        ...(options.registrationHashing ? { registrationHashing: options.registrationHashing } : {}),
      }),
    stopApp: (app) => app.stop(),
    release: (app) => app.database.pool.end(),
  });
  await registry.app.database.migrate();

  const installations: InstallationConfigRecord[] = [];
  const installationRequests: Array<{ team_ids: string[] | null }> = [];
  const installationsBus = await options.buses.connect('installations-stand-in');
  installationsBus.serve(installationsConfigForSatelliteSubject, (request) => {
    installationRequests.push(request);
    const teams = request.team_ids;
    // Answers what was asked, except installations named `leak…`, which it sends to everyone: the
    // registry must drop them for a team satellite of another team.
    return {
      installations: installations.filter(
        (i) => teams === null || teams.includes(i.team_id) || i.installation_name.startsWith('leak'),
      ),
    };
  });
  return { registry, clock, installations, installationRequests };
}

/** A connection to the registry's schema, for what a test must see or plant past the service. */
export async function connectToRegistrySchema(env: Pick<TestEnvironment, 'postgres'>): Promise<pg.Client> {
  const db = new pg.Client({ ...env.postgres });
  await db.connect();
  await db.query('SET search_path = registry');
  return db;
}

export const globalAdmin: CallerIdentity = {
  kind: 'user',
  user_id: '00000000-0000-4000-8000-000000000001',
  global_role: 'global_admin',
  memberships: [],
};

export function teamMember(
  teamId: string,
  role: 'team_admin' | 'team_user',
  globalRole: 'global_user' | 'global_admin' = 'global_user',
): UserIdentity {
  return {
    kind: 'user',
    user_id: `00000000-0000-4000-8000-${teamId.padStart(12, '0').slice(-12)}`,
    global_role: globalRole,
    memberships: [{ team_id: teamId, role }],
  };
}

export const satelliteBody = (name: string, extra: object = {}) => ({
  name,
  capabilities: ['stdio', 'http'],
  system_info: { os: 'linux', node: '24' },
  ...extra,
});

export const heartbeatBody = (extra: object = {}) => ({
  system: {
    cpu_percent: 12.5,
    memory: { used_mb: 512, total_mb: 2048 },
    disk: { used_mb: 1000, total_mb: 10000 },
    network_status: 'online' as const,
    process_counts: { total: 1, running: 1, failed: 0 },
    uptime_seconds: 42,
  },
  processes: [
    {
      process_id: 'filesystem-alpha-inst-1',
      installation_id: 'inst-1',
      team_id: 'team-a',
      status: 'running',
      health: 'healthy' as const,
      request_count: 7,
      avg_response_time_ms: 12,
      cpu_percent: 1.5,
      memory_mb: 80,
    },
  ],
  ...extra,
});

/** A stored installation as the installations service sends it: a filesystem server, overridable. */
export function installationRecord(
  id: string,
  teamId: string,
  teamSlug: string,
  overrides: Partial<InstallationConfigRecord> = {},
): InstallationConfigRecord {
  return {
    installation_id: id,
    installation_name: id,
    team_id: teamId,
    team_slug: teamSlug,
    server_slug: 'filesystem',
    transport: 'stdio',
    template_config: JSON.stringify({ command: 'npx', args: ['-y', '@mcp/fs'], env: { MODE: 'ro' } }),
    team_config: '{}',
    user_config: null,
    settings: {},
    ...overrides,
  };
}

/**
 * Two teams' installations as the configuration tests serve them: team A's valid one (with a secret in
 * its environment) and one whose stored configuration is broken JSON; team B's, and one named `leak…`
 * that the stand-in sends to every satellite.
 */
export function twoTeamsInstallations(): InstallationConfigRecord[] {
  return [
    installationRecord('a-files', 'team-a', 'alpha', {
      team_config: JSON.stringify({ args: ['/srv/a'], env: { API_TOKEN: 'team-a-secret', MODE: 'rw' } }),
    }),
    installationRecord('a-broken', 'team-a', 'alpha', { team_config: '{"args": ["/srv", ' }),
    installationRecord('b-files', 'team-b', 'beta'),
    installationRecord('leak-b', 'team-b', 'beta'),
  ];
}

export const spawn = (teamId: string, installationId = 'inst-1') => ({
  command_type: 'spawn',
  payload: { team_id: teamId, installation_id: installationId },
});
