import { z } from 'zod';
import { publicAccess, serviceAccess } from '../access/subjectAccess.ts';
import { defineBroadcast } from '../events/defineBroadcast.ts';
import { isoTimestamp } from '../isoTimestamp.ts';
import { defineSubject, emptyRequest, type ServiceName } from '../subject.ts';

export const databaseType = z.literal('postgresql', {
  error: 'type must be "postgresql", the only supported database',
});

export const dbStatus = z.object({
  configured: z.boolean(),
  initialized: z.boolean(),
  dialect: databaseType,
});
export type DbStatus = z.infer<typeof dbStatus>;

export const dbSetupRequest = z.object({ type: databaseType }).strict();
export const dbSetupReply = z.object({
  message: z.string(),
  restart_required: z.boolean(),
  database_type: databaseType,
});
export type DbSetupReply = z.infer<typeof dbSetupReply>;

/** The database selection record: persistent_data/db.selection.json, written by setup, never edited by hand. */
export const dbSelectionRecord = z.object({
  type: databaseType,
  selectedAt: isoTimestamp,
  version: z.literal('1.0'),
});
export type DbSelectionRecord = z.infer<typeof dbSelectionRecord>;

export const dbStatusSubject = defineSubject({
  subject: 'settings.db.status',
  service: 'settings',
  description: 'Whether the database is configured (POSTGRES_* set) and initialised (setup completed).',
  // Setup runs before any user exists; it succeeds once, a second call is a conflict.
  access: publicAccess,
  request: emptyRequest,
  reply: dbStatus,
});

export const dbSetupSubject = defineSubject({
  subject: 'settings.db.setup',
  service: 'settings',
  description:
    'Initialises the database: every database-owning service applies its migrations. A second setup is a conflict.',
  access: publicAccess,
  request: dbSetupRequest,
  reply: dbSetupReply,
});

export const migrateReply = z.object({
  schema: z.string(),
  applied: z.array(z.string()),
});

/** The services that own a schema, in the order setup migrates them. */
export const databaseOwners = [
  'settings',
  'identity',
  'registry',
  'installations',
] as const satisfies readonly ServiceName[];
export type DatabaseOwner = (typeof databaseOwners)[number];

function migrateSubject<S extends DatabaseOwner>(service: S) {
  return defineSubject({
    subject: `${service}.db.migrate`,
    service,
    description: `Applies the pending migrations of the ${service} schema (sent by database setup).`,
    access: serviceAccess('settings'),
    request: emptyRequest,
    reply: migrateReply,
  });
}

export const migrateSubjects = {
  settings: migrateSubject('settings'),
  identity: migrateSubject('identity'),
  registry: migrateSubject('registry'),
  installations: migrateSubject('installations'),
} as const satisfies Record<DatabaseOwner, unknown>;

/**
 * To every replica of every database owner once setup has completed. The migrate requests above reach
 * one replica per service; this tells the others to apply (nothing new), open their pools and run
 * their post-migration work, so no replica keeps answering `unavailable`.
 */
export const databaseSetupCompletedBroadcast = defineBroadcast({
  subject: 'evt.database.setup_completed',
  producer: 'settings',
  listeners: ['gateway-api', 'settings', 'satellite-registry', 'installations'],
  description: 'Database setup has completed: every replica of every database owner opens its schema.',
  payload: z.object({ completed_at: isoTimestamp }),
});
