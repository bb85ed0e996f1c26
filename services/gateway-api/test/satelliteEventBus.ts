import { type Bus, createBus, ensureStream } from '@orbital/bus';
import { satelliteEventsStream } from '@orbital/contracts';
import type { Logger } from '@orbital/logger';
import { createTestEnvironment, type TestEnvironment } from '@orbital/testing';

/**
 * A test environment without a database and gateway-api's bus on it, with the satellite events stream
 * the registry would have created: where event batches are stored.
 */
export async function startSatelliteEventBus(logger: Logger): Promise<{ env: TestEnvironment; bus: Bus }> {
  const env = await createTestEnvironment({ withDatabase: false });
  const bus = await createBus({ ...env.busOptions('gateway'), logger });
  await ensureStream(bus, satelliteEventsStream);
  return { env, bus };
}
