import { randomUUID } from 'node:crypto';
import { jetstream } from '@nats-io/jetstream';
import { type Bus, ensureStream, publishData, publishEvent } from '@orbital/bus';
import {
  type CallerIdentity,
  headerNames,
  installationSubjects,
  type SatelliteEventData,
  type SatelliteEventType,
  satelliteEvents,
  satelliteEventsStream,
} from '@orbital/contracts';
import { AppError } from '@orbital/errors';
import { createLogger } from '@orbital/logger';
import { createTestBuses, markDatabaseSetUp, startServiceUnderTest, type TestEnvironment } from '@orbital/testing';
import pg from 'pg';
import { createApp, type InstallationsApp } from '../src/app.ts';
import { configSchema } from '../src/config.ts';
import type { OutboxCommand } from '../src/domain/outboxRelay.ts';

export const teamA = randomUUID();
export const teamB = randomUUID();
export const teamSlugs: Record<string, string> = { [teamA]: 'team-a', [teamB]: 'team-b' };

export const admin: CallerIdentity = { kind: 'user', user_id: 'u-admin', global_role: 'global_admin', memberships: [] };
export const teamAdmin: CallerIdentity = {
  kind: 'user',
  user_id: 'u-team-admin',
  global_role: 'global_user',
  memberships: [{ team_id: teamA, role: 'team_admin' }],
};
export const teamUser: CallerIdentity = {
  kind: 'user',
  user_id: 'u-team-user',
  global_role: 'global_user',
  memberships: [{ team_id: teamA, role: 'team_user' }],
};
export const otherTeamAdmin: CallerIdentity = {
  kind: 'user',
  user_id: 'u-other',
  global_role: 'global_user',
  memberships: [{ team_id: teamB, role: 'team_admin' }],
};
export const anonymous: CallerIdentity = { kind: 'anonymous' };
export const jobs: CallerIdentity = { kind: 'service', service: 'jobs' };

export type Harness = {
  app: InstallationsApp;
  bus: Bus;
  client: Bus;
  /** Commands the service handed to the registry, in order. */
  commands: OutboxCommand[];
  /** Makes the registry unreachable (true) or reachable again. */
  registryDown(down: boolean): void;
  sql<T = Record<string, unknown>>(text: string, values?: unknown[]): Promise<T[]>;
  /** The entries of the service's audit outbox whose action is LIKE the pattern (`%`: any run of characters). */
  auditEntries<E>(actionLike: string): Promise<E[]>;
  emit<T extends SatelliteEventType>(
    type: T,
    data: SatelliteEventData<T>,
    options?: { timestamp?: string; id?: string; msgId?: string },
  ): Promise<string>;
  /**
   * Stores one batch message of `type` as gateway-api does (`evt.satellite.<id>.batch.<type>`), published
   * as it is: an element may break its contract, as one from a broken producer could. Returns the ids.
   */
  emitBatch(type: SatelliteEventType, data: unknown[], options?: { msgId?: string; ids?: string[] }): Promise<string[]>;
  stop(): Promise<void>;
};

export async function startInstallations(
  env: TestEnvironment,
  satelliteId = randomUUID(),
  configEnv: Record<string, string> = {},
): Promise<Harness> {
  await markDatabaseSetUp(env);
  const logger = createLogger({ name: 'installations-test', level: process.env.TEST_LOG_LEVEL ?? 'silent' });
  const buses = createTestBuses(env, logger);
  const client = await buses.connect('client');
  // The registry owns the satellite event stream; here the test client creates it, as the registry would.
  await ensureStream(client, satelliteEventsStream);
  const commands: OutboxCommand[] = [];
  let down = false;
  const installations = await startServiceUnderTest({
    env,
    name: 'installations',
    logger,
    buses,
    configSchema,
    // The operator of this stack lets templates reach one link-local network (a test of that allowance).
    configEnv: { OUTBOX_RETRY_MS: '200', TEMPLATE_URL_ALLOWED_NETWORKS: '169.254.100.0/24', ...configEnv },
    create: (deps) =>
      createApp({
        ...deps,
        teamSlug: async (teamId) => teamSlugs[teamId] ?? 'unknown-team',
        sendCommand: async (command) => {
          if (down) throw new Error('registry unreachable');
          commands.push(command);
        },
      }),
    stopApp: (app) => app.stop(),
    release: (app) => app.database.pool.end(),
  });
  async function sql<T>(text: string, values: unknown[] = []) {
    const c = new pg.Client({ ...env.postgres });
    await c.connect();
    try {
      return (await c.query(text, values)).rows as T[];
    } finally {
      await c.end();
    }
  }
  return {
    app: installations.app,
    bus: installations.bus,
    client,
    commands,
    registryDown: (value) => {
      down = value;
    },
    sql,
    async auditEntries<E>(actionLike: string) {
      const rows = await sql<{ entry: E }>(
        `SELECT entry FROM installations.audit_outbox WHERE entry->>'action' LIKE $1`,
        [actionLike],
      );
      return rows.map((r) => r.entry);
    },
    async emit(type, data, options = {}) {
      const id = options.id ?? randomUUID();
      const envelope = { id, type, timestamp: options.timestamp ?? new Date().toISOString(), data };
      const def = satelliteEvents[type as SatelliteEventType];
      const msgId = options.msgId ?? id;
      if (def.payload.safeParse(envelope).success) {
        await publishEvent(client, def, envelope as never, { tokens: { satellite_id: satelliteId }, msgId });
      } else {
        // What a broken producer could store, past every contract: the consumer must park it.
        const subject = client.subject(`evt.satellite.${satelliteId}.${type}`);
        await jetstream(client.connection).publish(subject, JSON.stringify(envelope), { msgID: msgId });
      }
      return id;
    },
    async emitBatch(type, data, options = {}) {
      const ids = options.ids ?? data.map(() => randomUUID());
      const events = data.map((d, i) => ({ id: ids[i], type, timestamp: new Date().toISOString(), data: d }));
      await publishData(client, `evt.satellite.${satelliteId}.batch.${type}`, JSON.stringify({ events }), {
        msgId: options.msgId ?? randomUUID(),
        headers: { [headerNames.satelliteId]: satelliteId },
      });
      return ids;
    },
    async stop() {
      await installations.stop();
      await buses.drain();
    },
  };
}

/**
 * Installs the memory reference server into team A once for each name, as its team admin, after adding
 * its template (as the global admin): the ids of the installations, in the order of the names.
 */
export async function installMemoryServers(h: Harness, names: string[]): Promise<string[]> {
  await h.client.request(
    installationSubjects.createTemplate,
    { slug: 'memory', name: 'Memory', transport: 'stdio', command: 'npx', args: ['-y', 'memory-server'] },
    { identity: admin },
  );
  const ids: string[] = [];
  for (const name of names) {
    const installed = await h.client.request(
      installationSubjects.createInstallation,
      { team_id: teamA, installation: { server_slug: 'memory', name } },
      { identity: teamAdmin },
    );
    ids.push(installed.id);
  }
  return ids;
}

/** The error code a request was refused with, or `ok` when it was answered. */
export async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return error.code;
    throw error;
  }
  return 'ok';
}

/** Waits until `check` returns a value (not undefined/false), trying again until the timeout. */
export async function eventually<T>(check: () => Promise<T | undefined | false>, timeoutMs = 10000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) throw new Error(`condition not met in time${lastError ? `: ${String(lastError)}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
