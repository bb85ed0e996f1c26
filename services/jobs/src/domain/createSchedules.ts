import {
  auditSubjects,
  jobWorkSubjects,
  type ReplyOf,
  type RequestOf,
  type ScheduleName,
  type SubjectDef,
} from '@orbital/contracts';

/** Sends one request to the service that owns the work; the caller adds identity, request id and timeout. */
export type WorkRequester = <S extends SubjectDef>(def: S, payload: RequestOf<S>) => Promise<ReplyOf<S>>;

export type Schedule = {
  name: ScheduleName;
  everyMs: number;
  /**
   * One tick's work, given the tick's scheduled time. It only asks the owning service, with the tick time
   * as the tick's id: running it again for the same tick (a retry, or a takeover after a replica died)
   * asks for the same tick, which the owning service does once. Resolves to what is recorded as the
   * run's result in the job record.
   */
  perform(tickAt: Date, request: WorkRequester): Promise<Record<string, unknown>>;
};

export type ScheduleSettings = {
  credentialValidationEveryMs: number;
  templateHealthEveryMs: number;
  logCleanupEveryMs: number;
  rotationMinutes: number;
  logLinesKept: number;
};

/** Installation ids kept in a run's recorded result; the full list is in the installations service. */
export const recordedIdsLimit = 50;

/**
 * The three schedules: credential validation every minute, template health every 3 minutes, log cleanup
 * every 10 minutes by default, timed by configuration. The cleanup tick also asks the audit log (the
 * settings service) to remove the entries its retention setting no longer keeps.
 */
export function createSchedules(settings: ScheduleSettings): Schedule[] {
  return [
    {
      name: 'credential_validation',
      everyMs: settings.credentialValidationEveryMs,
      async perform(tickAt, request) {
        const reply = await request(jobWorkSubjects.credentialValidation, {
          tick_at: tickAt.toISOString(),
          rotation_minutes: settings.rotationMinutes,
          every_ms: settings.credentialValidationEveryMs,
        });
        // A job record lives in Redis for a day; a large tick's id list would bloat every record.
        const ids = reply.installation_ids;
        return {
          due: reply.due,
          queued: reply.queued,
          installation_ids: ids.slice(0, recordedIdsLimit),
          ...(ids.length > recordedIdsLimit ? { installation_ids_omitted: ids.length - recordedIdsLimit } : {}),
          ...(reply.repeated ? { repeated: true } : {}),
        };
      },
    },
    {
      name: 'template_health',
      everyMs: settings.templateHealthEveryMs,
      async perform(tickAt, request) {
        return request(jobWorkSubjects.templateHealth, { tick_at: tickAt.toISOString() });
      },
    },
    {
      name: 'log_cleanup',
      everyMs: settings.logCleanupEveryMs,
      async perform(tickAt, request) {
        const logs = await request(jobWorkSubjects.logCleanup, {
          keep_per_installation: settings.logLinesKept,
          tick_at: tickAt.toISOString(),
        });
        // Pruning is idempotent by nature (it removes what is older than a cutoff): a retried tick, which
        // finds the log lines already done, simply asks again.
        const audit = await request(auditSubjects.prune, { tick_at: tickAt.toISOString() });
        return { ...logs, audit_entries_removed: audit.removed, audit_retention_days: audit.retention_days };
      },
    },
  ];
}
