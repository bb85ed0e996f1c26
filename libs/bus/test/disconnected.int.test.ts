import { randomUUID } from 'node:crypto';
import { registrySubjects, satelliteEvents, satelliteEventsStream, serviceIdentity } from '@orbital/contracts';
import { AppError } from '@orbital/errors';
import { createLogger } from '@orbital/logger';
import { createTestEnvironment, startTcpProxy, type TcpProxy, type TestEnvironment } from '@orbital/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Bus, createBus, ensureStream, publishEvent } from '../src/index.ts';

const crashed = () => ({
  id: randomUUID(),
  type: 'mcp.server.crashed' as const,
  timestamp: new Date().toISOString(),
  data: {
    server_id: 'inst-1',
    server_slug: 'files',
    installation_name: 'files',
    team_id: 'team-1',
    process_id: 42,
    exit_code: 1,
    signal: null,
    uptime_seconds: 3,
    crash_count: 1,
    will_restart: true,
  },
});
const publishCrash = (bus: Bus) =>
  publishEvent(bus, satelliteEvents['mcp.server.crashed'], crashed(), { tokens: { satellite_id: 's1' } });

/** While the connection to NATS is down, requests and publishes are refused at once, not timed out. */
let env: TestEnvironment;
let proxy: TcpProxy;
let bus: Bus;

beforeAll(async () => {
  env = await createTestEnvironment({ withDatabase: false });
  proxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(env.natsUrl).port) });
  bus = await createBus({
    servers: `nats://${proxy.host}:${proxy.port}`,
    identity: env.identity,
    name: 'disconnected-test',
    prefix: env.subjectPrefix,
    logger: createLogger({ name: 'bus-test', level: 'silent' }),
    streamMaxBytes: env.streamMaxBytes,
    // Long enough that a request waiting for it could not pass for a refusal.
    requestTimeoutMs: 30_000,
  });
  await ensureStream(bus, satelliteEventsStream);
});

afterAll(async () => {
  proxy.restore();
  await bus.drain();
  await proxy.close();
  await env.cleanup();
});

async function refusal(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return { code: error.code, details: error.details };
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('a bus whose connection is down', () => {
  it('refuses requests and publishes as bus_disconnected, says so, and works again after reconnecting', async () => {
    expect(bus.isConnected()).toBe(true);
    proxy.cut();
    await expect.poll(() => bus.isConnected()).toBe(false);
    expect(
      await refusal(
        bus.request(registrySubjects.lookupApiKey, { key_id: 'sk_x' }, { identity: serviceIdentity('gateway-api') }),
      ),
    ).toMatchObject({ code: 'unavailable', details: { reason: 'bus_disconnected' } });
    expect(await refusal(publishCrash(bus))).toMatchObject({
      code: 'unavailable',
      details: { reason: 'bus_disconnected' },
    });
    proxy.restore();
    await expect.poll(() => bus.isConnected(), { timeout: 15_000 }).toBe(true);
    const stored = await publishCrash(bus);
    expect(stored.duplicate).toBe(false);
  });
});
