import { fileURLToPath } from 'node:url';
import { type AuditRelay, createAuditRelay } from '@orbital/audit';
import { ensureStream } from '@orbital/bus';
import { commandEventsStream, heartbeatEventsStream, satelliteEventsStream } from '@orbital/contracts';
import { postgresConnectionFromEnv } from '@orbital/db';
import { type AppDeps, type DatabaseOwnerApp, startDatabaseOwner } from '@orbital/service';
import type { Config } from './config.ts';
import { createCommandQueue } from './domain/commandQueue.ts';
import { createConfigurationDistribution } from './domain/distributeConfiguration.ts';
import { createRegistration } from './domain/registerSatellite.ts';
import { createRegistrationTokenSigner } from './domain/registrationTokenSigner.ts';
import type { RegistryDeps } from './domain/registryDeps.ts';
import { createSatelliteOperations } from './domain/satelliteOperations.ts';
import { createTokenOperations } from './domain/tokenOperations.ts';
import { createOfflineWatch, type OfflineWatch } from './domain/watchOfflineSatellites.ts';
import { type RegistryOperations, serveRegistryHandlers } from './handlers/serveRegistryHandlers.ts';

export const migrationsDir = fileURLToPath(new URL('../migrations', import.meta.url));

/** `stop()` stops the audit relay and the offline watch. */
export type RegistryApp = DatabaseOwnerApp<RegistryOperations> & {
  /** Delivers the audit entries this service records to the audit log. */
  auditRelay: AuditRelay;
  /** Looks for satellites that went offline and has the global admins told. */
  offlineWatch: OfflineWatch;
};

/**
 * Wires the service onto a bus. No environment access: tests build the same app, and may pass a clock
 * (`now`) to move time for token expiry and command leases, and cheaper Argon2 options.
 */
export async function createApp(
  deps: AppDeps<Config> & {
    now?: () => Date;
    argon2Options?: RegistryDeps['argon2Options'];
    registrationHashing?: RegistryDeps['registrationHashing'];
  },
): Promise<RegistryApp> {
  const { bus, logger, config } = deps;
  const now = deps.now ?? (() => new Date());
  // The registry owns the satellite event, command event and heartbeat streams: it creates them, and brings them
  // to the definitions in libs/contracts at every start.
  await ensureStream(deps.bus, satelliteEventsStream);
  await ensureStream(deps.bus, commandEventsStream);
  await ensureStream(deps.bus, heartbeatEventsStream);
  const database = await startDatabaseOwner({
    bus,
    owner: 'registry',
    connection: postgresConnectionFromEnv(config),
    migrationsDir,
    logger,
    // Queries run often (every poll of every satellite); more connections than the default ten.
    maximumPoolSize: 20,
  });
  const shared: RegistryDeps = {
    pool: database.pool,
    bus,
    logger,
    now,
    signer: createRegistrationTokenSigner({ secret: config.REGISTRATION_TOKEN_SECRET, now }),
    leaseMs: config.COMMAND_LEASE_MS,
    defaultCommandExpiryMs: config.COMMAND_DEFAULT_EXPIRY_MS,
    heartbeatIntervalMs: config.HEARTBEAT_INTERVAL_MS,
    ...(deps.argon2Options ? { argon2Options: deps.argon2Options } : {}),
    ...(deps.registrationHashing ? { registrationHashing: deps.registrationHashing } : {}),
  };
  const operations: RegistryOperations = {
    tokens: createTokenOperations(shared),
    register: createRegistration(shared),
    commands: createCommandQueue(shared),
    satellites: createSatelliteOperations(shared),
    configurationFor: createConfigurationDistribution(shared),
  };
  serveRegistryHandlers(bus, operations);
  const auditRelay = createAuditRelay({ pool: database.pool, bus, logger, source: 'satellite-registry' });
  auditRelay.start();
  const offlineWatch = createOfflineWatch({
    pool: database.pool,
    bus,
    logger,
    now,
    heartbeatIntervalMs: config.HEARTBEAT_INTERVAL_MS,
  });
  offlineWatch.start(config.OFFLINE_CHECK_MS);
  return {
    database,
    operations,
    auditRelay,
    offlineWatch,
    async stop() {
      await offlineWatch.stop();
      await auditRelay.stop();
    },
  };
}
