import { type Bus, createBus } from '@orbital/bus';
import type { CallerIdentity } from '@orbital/contracts';
import { createLogger } from '@orbital/logger';
import { captureLog, type ServiceUnderTest, startServiceUnderTest, type TestEnvironment } from '@orbital/testing';
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

export type Replica = ServiceUnderTest<SettingsApp> & { logs(): string };

/** One settings replica in this process, on its own NATS connection, as it would run in its own process. */
export async function startReplica(env: TestEnvironment, extraEnv: Record<string, string> = {}): Promise<Replica> {
  const log = captureLog();
  const replica = await startServiceUnderTest({
    env,
    name: 'settings-test',
    logger: createLogger({ name: 'settings', level: 'info', destination: log.stream }),
    requestTimeoutMs: 3000,
    configSchema: settingsConfigSchema,
    configEnv: extraEnv,
    create: createSettingsApp,
    stopApp: (app) => app.stop(),
    release: (app) => app.database.pool.end(),
  });
  return { ...replica, logs: log.text };
}

export async function clientBus(env: TestEnvironment): Promise<Bus> {
  return createBus({
    ...env.busOptions('settings-client'),
    logger: createLogger({ name: 'client', level: 'silent' }),
    requestTimeoutMs: 3000,
  });
}
