import { requestersOf } from '../access/subjectAccess.ts';
import { auditEntryRecordedEvent, auditSubjects } from '../audit/auditSubjects.ts';
import { databaseSetupCompletedBroadcast, dbSetupSubject, dbStatusSubject, migrateSubjects } from '../db/dbSubjects.ts';
import type { BroadcastDef } from '../events/defineBroadcast.ts';
import type { EventDef } from '../events/defineEvent.ts';
import { eventStreams, type StreamDefinition } from '../events/eventStreams.ts';
import {
  identitySatelliteOfflineNoticeSubject,
  identityTeamGetSubject,
  replicaAnnouncementBroadcast,
  sessionInvalidationBroadcast,
} from '../identity/identitySubjects.ts';
import { clientActivityRecordedEvent } from '../installations/clientActivity.ts';
import {
  installationLogAppendedEvent,
  installationRequestLoggedEvent,
  installationStatusChangedEvent,
} from '../installations/installationEvents.ts';
import { installationSubjects } from '../installations/installationSubjects.ts';
import { remoteOAuthSubjects } from '../installations/remoteOAuth.ts';
import { toolPolicySubjects } from '../installations/toolPolicies.ts';
import { jobsStatusSubject, jobWorkSubjects } from '../jobs/jobSubjects.ts';
import type { ProcessName } from '../processes.ts';
import { installationsConfigForSatelliteSubject } from '../registry/installationConfigSubject.ts';
import { commandCreatedEvent, satelliteHeartbeatRecordedEvent } from '../registry/registryEvents.ts';
import { apiKeyInvalidatedBroadcast, registrySubjects } from '../registry/registrySubjects.ts';
import { satelliteEventBatches, satelliteEvents } from '../satellite/satelliteEventDefinitions.ts';
import { settingsCacheSyncBroadcast, settingsChangedEvent, settingsSubjects } from '../settings/settingsSubjects.ts';
import { type SubjectDef, servedBy } from '../subject.ts';

/** Every request/reply subject of the platform. */
export const subjectCatalogue: readonly SubjectDef[] = [
  dbStatusSubject,
  dbSetupSubject,
  ...Object.values(migrateSubjects),
  ...Object.values(settingsSubjects),
  identityTeamGetSubject,
  identitySatelliteOfflineNoticeSubject,
  ...Object.values(registrySubjects),
  installationsConfigForSatelliteSubject,
  ...Object.values(installationSubjects),
  ...Object.values(remoteOAuthSubjects),
  ...Object.values(toolPolicySubjects),
  ...Object.values(jobWorkSubjects),
  jobsStatusSubject,
  ...Object.values(auditSubjects),
];

/** Every event kept in JetStream. */
export const eventCatalogue: readonly EventDef[] = [
  ...Object.values(satelliteEventBatches),
  ...Object.values(satelliteEvents),
  settingsChangedEvent,
  installationStatusChangedEvent,
  installationLogAppendedEvent,
  installationRequestLoggedEvent,
  clientActivityRecordedEvent,
  satelliteHeartbeatRecordedEvent,
  commandCreatedEvent,
  auditEntryRecordedEvent,
];

/** Every broadcast between replicas (core NATS, not stored). */
export const broadcastCatalogue: readonly BroadcastDef[] = [
  settingsCacheSyncBroadcast,
  databaseSetupCompletedBroadcast,
  apiKeyInvalidatedBroadcast,
  sessionInvalidationBroadcast,
  replicaAnnouncementBroadcast,
];

/** What one process does on NATS, enumerated from the catalogue. */
export type ProcessContracts = {
  /** Subjects its replicas answer, in the queue group of their service. */
  serves: SubjectDef[];
  /** Subjects it sends requests to (for itself, or for the people and satellites it speaks for). */
  requests: SubjectDef[];
  publishes: EventDef[];
  /** Events it reads with a durable consumer or an SSE feed. */
  consumes: EventDef[];
  broadcasts: BroadcastDef[];
  listens: BroadcastDef[];
  /** JetStream streams it creates and updates at start. */
  owns: StreamDefinition[];
};

/** The contracts of one process: what its NATS permissions must allow, and nothing more. */
export function contractsOf(process: ProcessName): ProcessContracts {
  return {
    serves: subjectCatalogue.filter((def) => servedBy(def) === process),
    requests: subjectCatalogue.filter((def) => requestersOf(def.access).includes(process)),
    publishes: eventCatalogue.filter((def) => def.producer === process),
    consumes: eventCatalogue.filter((def) => def.consumers.includes(process)),
    broadcasts: broadcastCatalogue.filter((def) => def.producer === process),
    listens: broadcastCatalogue.filter((def) => def.listeners.includes(process)),
    owns: eventStreams.filter((stream) => stream.owner === process),
  };
}
