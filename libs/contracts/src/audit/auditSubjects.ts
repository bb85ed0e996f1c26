import { z } from 'zod';
import { serviceAccess } from '../access/subjectAccess.ts';
import { defineEvent } from '../events/defineEvent.ts';
import { auditEventsStream } from '../events/eventStreams.ts';
import { isoTimestamp } from '../isoTimestamp.ts';
import { defineSubject } from '../subject.ts';
import { auditEntry, auditEntryInput, auditPage, auditQuery } from './auditSchemas.ts';

/** Entries one record request carries at most: what an owner's relay sends per round trip. */
export const auditRecordBatchMax = 100;

/** The subject token of entries that belong to no team. */
export const auditPlatformScope = 'platform';

/**
 * The audit log's subjects, answered by the settings service, which stores the log. The owners of
 * actions (gateway-api, settings, satellite-registry, installations) deliver the entries they recorded
 * in their own transactions; people read it through gateway-api: global admins all of it, a team's
 * admins their team's entries.
 */
export const auditSubjects = {
  record: defineSubject({
    subject: 'audit.entry.record',
    service: 'audit',
    access: serviceAccess('gateway-api', 'settings', 'satellite-registry', 'installations'),
    description:
      'Stores entries an owner recorded (each once, by id) and publishes each on evt.audit.recorded. A service may deliver only entries whose source is itself.',
    request: z.object({ entries: z.array(auditEntryInput).min(1).max(auditRecordBatchMax) }).strict(),
    reply: z.object({ stored: z.number().int(), already_stored: z.number().int() }),
  }),
  list: defineSubject({
    subject: 'audit.entry.list',
    service: 'audit',
    // With team_id: that team's entries, for whoever holds audit.view in it (its team admins, global
    // admins). Without: the whole log, for holders of the global audit.view (global admins).
    access: { users: { kind: 'team', permission: 'audit.view', team: 'team_id', without_team: 'audit.view' } },
    description: 'A page of the audit log, newest first, filtered; keyset paging with next_cursor.',
    request: auditQuery,
    reply: auditPage,
  }),
  prune: defineSubject({
    subject: 'audit.entry.prune',
    service: 'audit',
    access: serviceAccess('jobs'),
    description: 'Removes entries older than the audit.retention_days setting (the 10-minute schedule asks).',
    request: z.object({ tick_at: isoTimestamp.optional() }).strict(),
    reply: z.object({
      removed: z.number().int(),
      retention_days: z.number().int(),
      cutoff: isoTimestamp,
    }),
  }),
} as const;

/**
 * Each entry once it is stored, on a subject of its team (or `platform`), so a team's live stream reads
 * only its own entries as a server-side filter. Published after the entry committed: the stream never
 * shows an entry the log does not hold.
 */
export const auditEntryRecordedEvent = defineEvent({
  subject: 'evt.audit.recorded.{scope}',
  stream: auditEventsStream,
  producer: 'settings',
  consumers: ['gateway-api'],
  description: 'An audit entry was stored (feeds the live audit streams).',
  payload: auditEntry,
});
