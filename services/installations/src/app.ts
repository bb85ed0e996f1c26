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
import { createAddressPolicy, createGuardedFetch, nonPublicAddresses } from '@orbital/egress';
import { AppError } from '@orbital/errors';
import { type AppDeps, createDatabaseOwner, type DatabaseOwnerApp, type DatabaseOwnerHandle } from '@orbital/service';
import type { Config } from './config.ts';
import { type ConsumerHandle, startSatelliteEventConsumer } from './consumers/startSatelliteEventConsumer.ts';
import { findOAuthInstallation } from './db/oauthQueries.ts';
import {
  createInstallationsOperations,
  type InstallationsOperations,
  type TeamSlugLookup,
} from './domain/createInstallationsOperations.ts';
import { createToolPolicies } from './domain/createToolPolicies.ts';
import { reconfigure } from './domain/installationChanges.ts';
import { createOutboxRelay, type OutboxRelay, type SendCommand } from './domain/outboxRelay.ts';
import { createPinnedDefinitions } from './domain/pinToolDefinitions.ts';
import { type ConfigurationRecord, readConfigurationRecords } from './domain/readConfigurationRecords.ts';
import { serveInstallationSubjects } from './handlers/serveInstallationSubjects.ts';
import { serveJobSubjects } from './handlers/serveJobSubjects.ts';
import { serveRemoteOAuthSubjects } from './handlers/serveRemoteOAuthSubjects.ts';
import { serveToolPolicySubjects } from './handlers/serveToolPolicySubjects.ts';
import { createRemoteOAuth, type RemoteOAuth } from './oauth/createRemoteOAuth.ts';
import { createRevocationRelay, type RevocationRelay } from './oauth/createRevocationRelay.ts';

export const migrationsDir = fileURLToPath(new URL('../migrations', import.meta.url));

/** `stop()` stops the consumer and the relays. */
export type InstallationsApp = DatabaseOwnerApp<InstallationsOperations> & {
  relay: OutboxRelay;
  /** Delivers the audit entries this service records to the audit log. */
  auditRelay: AuditRelay;
  remoteOAuth: RemoteOAuth;
  revocations: RevocationRelay;
  /** Configuration levels for distribution to satellites (secrets decrypted); null teamIds: every team. */
  configurationRecords(teamIds: readonly string[] | null): Promise<ConfigurationRecord[]>;
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
export async function createApp(
  deps: AppDeps<Config> & {
    /** How a command reaches the registry; `registry.command.create` unless a test gives another. */
    sendCommand?: SendCommand;
    /** Defaults to identity's `identity.team.get`. */
    teamSlug?: TeamSlugLookup;
  },
): Promise<InstallationsApp> {
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
  const remoteFetch = createGuardedFetch({
    policy: createAddressPolicy({ refuse: nonPublicAddresses, allowNetworks: config.REMOTE_OAUTH_ALLOWED_NETWORKS }),
    timeoutMs: config.REMOTE_OAUTH_TIMEOUT_MS,
    maxBytes: 256 * 1024,
    allowHttp: config.REMOTE_OAUTH_ALLOW_HTTP,
  });
  const revocations = createRevocationRelay({
    pool: database.pool,
    box,
    logger,
    fetch: remoteFetch,
    intervalMs: config.OUTBOX_RETRY_MS,
  });
  const remoteOAuth = createRemoteOAuth({
    pool: database.pool,
    box,
    logger,
    fetch: remoteFetch,
    async findInstallation(db, teamId, installationId) {
      const found = await findOAuthInstallation(db, installationId, teamId);
      if (!found) throw new AppError('not_found', 'No such installation in this team');
      return found;
    },
    findInstallationById: (db, installationId) => findOAuthInstallation(db, installationId, null),
    reconfigure,
    async afterCommit() {
      await relay.flush();
      await revocations.flush();
    },
    refreshMarginSeconds: config.REMOTE_OAUTH_REFRESH_MARGIN_SECONDS,
  });
  const operations = createInstallationsOperations({
    pool: database.pool,
    box,
    relay,
    teamSlug,
    templateUrls,
    onDeleteInstallation: (tx, id) => remoteOAuth.revokeAll(tx, id),
    afterDelete: () => revocations.flush(),
  });
  serveInstallationSubjects(bus, operations, database.pool);
  serveRemoteOAuthSubjects(bus, remoteOAuth);
  serveToolPolicySubjects(
    bus,
    createToolPolicies({ pool: database.pool, relay }),
    createPinnedDefinitions({ pool: database.pool, relay }),
  );
  serveJobSubjects(bus, { pool: database.pool, relay });
  // The registry asks for configuration levels to distribute; secrets are decrypted into this reply only.
  bus.serve(installationsConfigForSatelliteSubject, async (request) => {
    return { installations: await readConfigurationRecords(database.pool.get(), box, logger, request.team_ids) };
  });
  const auditRelay = createAuditRelay({ pool: database.pool, bus, logger, source: 'installations' });
  await database.start();
  relay.start();
  auditRelay.start();
  revocations.start();

  return {
    database,
    operations,
    relay,
    auditRelay,
    remoteOAuth,
    revocations,
    configurationRecords: (teamIds) => readConfigurationRecords(database.pool.get(), box, logger, teamIds),
    async stop() {
      await consumer?.stop();
      await relay.stop();
      await auditRelay.stop();
      await revocations.stop();
    },
  };
}
