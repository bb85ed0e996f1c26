import { fileURLToPath } from 'node:url';
import { type AuditRelay, createAuditRelay } from '@orbital/audit';
import { type Bus, ensureStream } from '@orbital/bus';
import {
  identityTeamGetSubject,
  installationEventsStream,
  installationStatusChangedEvent,
  installationsConfigForSatelliteSubject,
  registrySubjects,
  serviceIdentity,
} from '@orbital/contracts';
import { createSecretBox } from '@orbital/crypto';
import { postgresConnectionFromEnv } from '@orbital/db';
import { createAddressPolicy } from '@orbital/egress';
import type { Logger } from '@orbital/logger';
import { createDatabaseOwner, type DatabaseOwnerHandle } from '@orbital/service';
import type { Config } from './config.ts';
import { type ConsumerHandle, startSatelliteEventConsumer } from './consumers/startSatelliteEventConsumer.ts';
import {
  createInstallationsOperations,
  type InstallationsOperations,
  type TeamSlugLookup,
} from './domain/createInstallationsOperations.ts';
import { createOutboxRelay, type OutboxRelay, type SendCommand } from './domain/outboxRelay.ts';
import { type ConfigurationRecord, readConfigurationRecords } from './domain/readConfigurationRecords.ts';
import { serveInstallationSubjects } from './handlers/serveInstallationSubjects.ts';
import { serveJobSubjects } from './handlers/serveJobSubjects.ts';

export const migrationsDir = fileURLToPath(new URL('../migrations', import.meta.url));

export type InstallationsApp = {
  database: DatabaseOwnerHandle;
  operations: InstallationsOperations;
  relay: OutboxRelay;
  /** Delivers the audit entries this service records to the audit log. */
  auditRelay: AuditRelay;
  /** Configuration levels for distribution to satellites (secrets decrypted); null teamIds: every team. */
  configurationRecords(teamIds: readonly string[] | null): Promise<ConfigurationRecord[]>;
  /** Stops the consumer and the relay (before the bus is drained). */
  stop(): Promise<void>;
};

const self = serviceIdentity('installations');

/** Commands go to the registry, which queues each for every satellite serving the payload's team. */
function sendThroughRegistry(bus: Bus): SendCommand {
  return async (command) => {
    await bus.request(
      registrySubjects.createCommand,
      {
        command_type: command.command_type,
        priority: command.priority,
        payload: command.payload,
        correlation_id: command.correlation_id,
      },
      { identity: self },
    );
  };
}

/** Wires the service onto a bus. No environment access: tests build the same app. */
export async function createApp(deps: {
  bus: Bus;
  logger: Logger;
  config: Config;
  /** How a command reaches the registry; `registry.command.create` unless a test gives another. */
  sendCommand?: SendCommand;
  /** Defaults to identity's `identity.team.get`. */
  teamSlug?: TeamSlugLookup;
}): Promise<InstallationsApp> {
  const { bus, logger, config } = deps;
  const box = createSecretBox(config.SERVICE_ENCRYPTION_SECRET);
  // The stream the SSE endpoints read; this service owns it and creates it before publishing.
  await ensureStream(bus, installationEventsStream);

  let consumer: ConsumerHandle | null = null;
  const database: DatabaseOwnerHandle = createDatabaseOwner({
    bus,
    owner: 'installations',
    connection: postgresConnectionFromEnv(config),
    migrationsDir,
    logger,
    // Satellite events need the tables: consume once the schema exists (at start, or at setup).
    onMigrated: async () => {
      consumer ??= startSatelliteEventConsumer(
        { pool: database.pool, bus, relay, logger },
        { retryMs: config.OUTBOX_RETRY_MS },
      );
      await relay.flush();
    },
  });
  const relay = createOutboxRelay({
    pool: database.pool,
    bus,
    logger,
    events: [installationStatusChangedEvent],
    sendCommand: deps.sendCommand ?? sendThroughRegistry(bus),
    intervalMs: config.OUTBOX_RETRY_MS,
  });
  const teamSlug: TeamSlugLookup =
    deps.teamSlug ??
    (async (teamId) => (await bus.request(identityTeamGetSubject, { team_id: teamId }, { identity: self })).slug);
  const templateUrls = createAddressPolicy({
    refuse: ['metadata', 'link-local'],
    allowNetworks: config.TEMPLATE_URL_ALLOWED_NETWORKS,
  });
  const operations = createInstallationsOperations({ pool: database.pool, box, relay, teamSlug, templateUrls });
  serveInstallationSubjects(bus, operations, database.pool);
  serveJobSubjects(bus, { pool: database.pool, relay });
  // The registry asks for configuration levels to distribute; secrets are decrypted into this reply only.
  bus.serve(installationsConfigForSatelliteSubject, async (request) => {
    return { installations: await readConfigurationRecords(database.pool.get(), box, logger, request.team_ids) };
  });
  const auditRelay = createAuditRelay({ pool: database.pool, bus, logger, source: 'installations' });
  await database.start();
  relay.start();
  auditRelay.start();

  return {
    database,
    operations,
    relay,
    auditRelay,
    configurationRecords: (teamIds) => readConfigurationRecords(database.pool.get(), box, logger, teamIds),
    async stop() {
      await consumer?.stop();
      await relay.stop();
      await auditRelay.stop();
    },
  };
}
