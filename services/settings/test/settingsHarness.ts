import { type Bus, createBus } from '@orbital/bus';
import { type AuditEntry, auditSubjects, type CallerIdentity } from '@orbital/contracts';
import { createLogger } from '@orbital/logger';
import { captureLog, type ServiceUnderTest, startServiceUnderTest, type TestEnvironment } from '@orbital/testing';
import pg from 'pg';
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

/** Rows of a query run straight against the test database, past the service. */
export async function sqlRows(env: TestEnvironment, text: string, values: unknown[] = []) {
  const c = new pg.Client({ ...env.postgres });
  await c.connect();
  try {
    return (await c.query(text, values)).rows;
  } finally {
    await c.end();
  }
}

/** The audit entries matching `query`, newest first, once there are at least `count` of them. */
export async function waitForAuditEntries(
  client: Bus,
  query: Record<string, unknown>,
  count = 1,
): Promise<AuditEntry[]> {
  const deadline = Date.now() + 15000;
  for (;;) {
    const page = await client.request(auditSubjects.list, { ...query, limit: 100 }, { identity: adminIdentity });
    if (page.entries.length >= count) return page.entries;
    if (Date.now() > deadline)
      throw new Error(`no ${count} audit entries for ${JSON.stringify(query)}: ${page.entries.length}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
