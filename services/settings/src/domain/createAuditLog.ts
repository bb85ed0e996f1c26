import { auditContextOf, recordAudit } from '@orbital/audit';
import { type Bus, type HandlerContext, publishEvent } from '@orbital/bus';
import {
  type AuditEntry,
  type AuditPage,
  type AuditQuery,
  auditEntryRecordedEvent,
  auditPlatformScope,
  type auditSubjects,
  type ParsedRequestOf,
  subjectToken,
} from '@orbital/contracts';
import type { LivePool } from '@orbital/db';
import { AppError } from '@orbital/errors';
import type { Logger } from '@orbital/logger';
import { z } from 'zod';
import {
  type AuditCursor,
  type AuditEntryRow,
  deleteOlderThan,
  insertEntries,
  listEntries,
  markPublished,
} from '../db/auditStore.ts';

export type AuditLog = ReturnType<typeof createAuditLog>;

const dayMs = 24 * 3600 * 1000;

export function toAuditEntry(row: AuditEntryRow): AuditEntry {
  return {
    id: row.id,
    occurred_at: new Date(row.occurred_at).toISOString(),
    source: row.source,
    action: row.action,
    actor: {
      kind: row.actor_kind,
      id: row.actor_id,
      email: row.actor_email,
      name: row.actor_name,
    },
    target: { kind: row.target_kind, id: row.target_id },
    team_id: row.team_id,
    outcome: row.outcome,
    reason: row.reason,
    source_ip: row.source_ip,
    request_id: row.request_id,
    details: row.details as AuditEntry['details'],
  };
}

const cursorShape = z.object({ t: z.number().int(), id: z.uuid() }).strict();

export function encodeCursor(entry: AuditEntry): string {
  const cursor: AuditCursor = { t: Date.parse(entry.occurred_at), id: entry.id };
  return Buffer.from(JSON.stringify(cursor)).toString('base64url');
}

function decodeCursor(text: string | undefined): AuditCursor | null {
  if (text === undefined) return null;
  try {
    return cursorShape.parse(JSON.parse(Buffer.from(text, 'base64url').toString('utf8')));
  } catch {
    throw new AppError('validation_failed', 'The cursor is not one a page of the audit log gave', {
      details: [{ path: 'query.cursor', message: 'use next_cursor of the previous page, as it was given' }],
    });
  }
}

/** The subject token an entry is published under: its team, or `platform`. */
function scopeOf(entry: AuditEntry): string {
  return entry.team_id !== null && subjectToken.safeParse(entry.team_id).success ? entry.team_id : auditPlatformScope;
}

/**
 * The audit log: the one store of every owner's entries. Entries arrive from the owners' relays, are
 * stored once by id, then published on evt.audit.recorded for the live streams (after commit, so a
 * stream never shows what the log does not hold); reads are pages, newest first, with a keyset cursor;
 * pruning removes what is older than the retention setting.
 */
export function createAuditLog(deps: {
  pool: LivePool;
  bus: Bus;
  logger: Logger;
  /** The retention setting, read at each prune so a change applies at the next tick. */
  retentionDays(): Promise<number>;
  now?: () => Date;
}) {
  const { pool, bus, logger } = deps;
  const now = deps.now ?? (() => new Date());

  async function publish(rows: readonly AuditEntryRow[]): Promise<void> {
    const entries = rows.map(toAuditEntry);
    // The entry id is the message id: a publish repeated by a repeated delivery is stored once.
    await Promise.all(
      entries.map((entry) =>
        publishEvent(bus, auditEntryRecordedEvent, entry, { tokens: { scope: scopeOf(entry) }, msgId: entry.id }),
      ),
    );
    await markPublished(
      pool.get(),
      entries.map((entry) => entry.id),
    );
  }

  return {
    async record(request: ParsedRequestOf<typeof auditSubjects.record>, context: HandlerContext) {
      // The source is who delivers, by its signed identity: an owner speaks for its own actions only.
      if (context.identity.kind !== 'service') throw new AppError('forbidden', 'Only platform services record entries');
      const { inserted, unpublished } = await insertEntries(pool.get(), context.identity.service, request.entries);
      // Stored is what the owner waits for; if the stream is away the owner delivers again, nothing is
      // stored twice, and what was not yet published is published then.
      await publish(unpublished);
      return { stored: inserted, already_stored: request.entries.length - inserted };
    },

    async list(query: AuditQuery, context: HandlerContext): Promise<AuditPage> {
      // The declared access already checked the team (or the global permission without one); the scope
      // is enforced here again, so no caller reads beyond what it was granted.
      const teams = context.access.teams();
      if (teams !== null && (query.team_id === undefined || !teams.includes(query.team_id))) {
        throw new AppError('forbidden', "This needs the audit.view permission: a team's admins read its entries");
      }
      const { limit, cursor, ...filter } = query;
      const rows = await listEntries(pool.get(), filter, decodeCursor(cursor), limit + 1);
      const entries = rows.slice(0, limit).map(toAuditEntry);
      const last = entries.at(-1);
      return { entries, next_cursor: rows.length > limit && last ? encodeCursor(last) : null };
    },

    async prune(_request: ParsedRequestOf<typeof auditSubjects.prune>, context: HandlerContext) {
      const days = await deps.retentionDays();
      const cutoff = new Date(now().getTime() - days * dayMs);
      const removed = await deleteOlderThan(pool.get(), cutoff);
      if (removed > 0) {
        logger.info({ removed, retention_days: days }, 'audit entries past their retention removed');
        // Removing entries is itself recorded, so a gap in the log is explained by the log.
        await recordAudit(pool.get(), {
          ...auditContextOf(context),
          action: 'audit.pruned',
          target: { kind: 'audit_log', id: null },
          details: { removed, retention_days: days, cutoff: cutoff.toISOString() },
        });
      }
      return { removed, retention_days: days, cutoff: cutoff.toISOString() };
    },
  };
}
