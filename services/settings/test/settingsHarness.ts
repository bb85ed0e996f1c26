import { type Bus, createBus } from '@orbital/bus';
import { loadConfig } from '@orbital/config';
import type { CallerIdentity } from '@orbital/contracts';
import { writeDatabaseSetupRecord } from '@orbital/db';
import { createLogger } from '@orbital/logger';
import { captureLog, type TestEnvironment } from '@orbital/testing';
import { createSettingsApp, type SettingsApp } from '../src/app.ts';
import { settingsConfigSchema } from '../src/config.ts';

export const adminIdentity: CallerIdentity = {
  kind: 'user',
  user_id: 'u-admin',
  global_role: 'global_admin',
  memberships: [],
};
export const userIdentity: CallerIdentity = {
  kind: 'user',
  user_id: 'u-user',
  global_role: 'global_user',
  memberships: [],
};
/** A platform process that reads plaintext values (gateway-api reads whether the docs are on). */
export const serviceCaller: CallerIdentity = { kind: 'service', service: 'gateway-api' };

/** The JSON log lines a replica wrote. */
export function logLines(text: string): Array<Record<string, unknown>> {
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

export type Replica = { app: SettingsApp; bus: Bus; logs(): string; stop(): Promise<void> };

/** One settings replica in this process, on its own NATS connection, as it would run in its own process. */
export async function startReplica(env: TestEnvironment, extraEnv: Record<string, string> = {}): Promise<Replica> {
  const log = captureLog();
  const logger = createLogger({ name: 'settings', level: 'info', destination: log.stream });
  const bus = await createBus({
    ...env.busOptions('settings-test'),
    logger,
    requestTimeoutMs: 3000,
  });
  const app = await createSettingsApp({
    bus,
    logger,
    config: loadConfig(settingsConfigSchema, { ...env.env, ...extraEnv }),
  });
  await bus.flush();
  return {
    app,
    bus,
    logs: log.text,
    stop: async () => {
      app.stop();
      await bus.drain();
      await app.database.pool.end();
    },
  };
}

/** Marks the database as set up, so a starting replica applies its migrations at once. */
export async function markSetUp(env: TestEnvironment): Promise<void> {
  await writeDatabaseSetupRecord(
    { ...env.postgres, ssl: false },
    { databaseType: 'postgresql', selectedAt: new Date(), version: '1.0' },
  );
}

export async function clientBus(env: TestEnvironment): Promise<Bus> {
  return createBus({
    ...env.busOptions('settings-client'),
    logger: createLogger({ name: 'client', level: 'silent' }),
    requestTimeoutMs: 3000,
  });
}
