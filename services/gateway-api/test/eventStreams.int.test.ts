import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { type Bus, createBus, streamConfig } from '@orbital/bus';
import { loadConfig } from '@orbital/config';
import { eventStreams, parkedEventsStream, type StreamDefinition } from '@orbital/contracts';
import { createApp as createInstallationsApp } from '@orbital/installations/app';
import { configSchema as installationsConfig } from '@orbital/installations/config';
import { createLogger } from '@orbital/logger';
import { createApp as createRegistryApp } from '@orbital/satellite-registry/app';
import { configSchema as registryConfig } from '@orbital/satellite-registry/config';
import { createSettingsApp } from '@orbital/settings/app';
import { settingsConfigSchema } from '@orbital/settings/config';
import { createTestEnvironment, type TestEnvironment } from '@orbital/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const logger = createLogger({ name: 'event-streams-test', level: 'silent' });
let env: TestEnvironment;
const buses: Bus[] = [];
const closers: Array<() => unknown> = [];

async function bus(name: string) {
  const created = await createBus({ ...env.busOptions(name), logger });
  buses.push(created);
  return created;
}

beforeAll(async () => {
  env = await createTestEnvironment();
  const registry = await createRegistryApp({
    bus: await bus('registry'),
    logger,
    config: loadConfig(registryConfig, env.env),
  });
  closers.push(registry.stop, () => registry.database.pool.end());
  const installations = await createInstallationsApp({
    bus: await bus('installations'),
    logger,
    config: loadConfig(installationsConfig, env.env),
  });
  closers.push(installations.stop, () => installations.database.pool.end());
  const settings = await createSettingsApp({
    bus: await bus('settings'),
    logger,
    config: loadConfig(settingsConfigSchema, {
      ...env.env,
      PERSISTENT_DATA_DIR: await mkdtemp(join(tmpdir(), 'orbital-')),
    }),
  });
  closers.push(settings.stop, () => settings.database.pool.end());
});
afterAll(async () => {
  for (const b of buses) await b.drain();
  for (const close of closers) await close();
  await env.cleanup();
});

describe('event streams', () => {
  it('are created at start by their owning services with the definitions of libs/contracts', async () => {
    const [probe] = buses as [Bus];
    const jsm = await jetstreamManager(probe.connection);
    const owned = eventStreams.filter((s: StreamDefinition) => s !== parkedEventsStream);
    for (const def of owned) {
      const expected = streamConfig(probe, def);
      const { config } = await jsm.streams.info(expected.name);
      expect(config).toMatchObject({
        subjects: expected.subjects,
        max_age: expected.max_age,
        max_bytes: expected.max_bytes,
        max_msg_size: expected.max_msg_size,
        duplicate_window: expected.duplicate_window,
        discard: expected.discard,
        retention: 'limits',
      });
    }
  });
});
