import { z } from 'zod';
import { globalAccess, serviceAccess } from '../access/subjectAccess.ts';
import { isoTimestamp } from '../isoTimestamp.ts';
import { defineSubject, emptyRequest } from '../subject.ts';

/** The tick's scheduled time: the tick's id, the same through every retry and every replica that runs it. */
const tickAt = isoTimestamp;

/**
 * True when the owning service had already done this tick (a retry after a lost reply, or a replica
 * killed mid-tick): the reply is the one recorded then, and nothing was done again.
 */
const repeated = z.boolean().optional();

/**
 * The work the jobs service schedules and the installations service does. jobs holds no database:
 * each tick it sends one of these requests; the owning service does the work idempotently and says
 * what it did, which jobs records as the run's outcome.
 */
export const jobWorkSubjects = {
  credentialValidation: defineSubject({
    subject: 'installations.jobs.credential_validation',
    service: 'installations',
    access: serviceAccess('jobs'),
    description:
      'Queues a health_check (credential_validation) command for the installations due this tick: each installation once per rotation window, spread evenly over the window.',
    request: z
      .object({
        /** So a retried tick selects the same installations, and is done once. */
        tick_at: tickAt,
        rotation_minutes: z.number().int().min(1).max(1440).default(15),
        /**
         * How far apart ticks are. The tick at `tick_at` covers (tick_at - every_ms, tick_at]; installations
         * whose phase in the rotation window falls there are due. Without it the selection would have to
         * assume one tick a minute, and a reconfigured schedule would skip or repeat installations.
         */
        every_ms: z.number().int().min(100).max(86_400_000).default(60_000),
      })
      .strict(),
    reply: z.object({
      due: z.number().int(),
      queued: z.number().int(),
      installation_ids: z.array(z.string()),
      repeated,
    }),
  }),
  templateHealth: defineSubject({
    subject: 'installations.jobs.template_health',
    service: 'installations',
    access: serviceAccess('jobs'),
    description:
      "Aggregates installation health into each template's health_status, last_health_check_at, health_check_error.",
    request: z.object({ tick_at: tickAt }).strict(),
    reply: z.object({ templates_updated: z.number().int(), repeated }),
  }),
  logCleanup: defineSubject({
    subject: 'installations.jobs.log_cleanup',
    service: 'installations',
    access: serviceAccess('jobs'),
    description: 'Deletes server log lines beyond the newest N per installation, in one set-based statement.',
    request: z
      .object({
        keep_per_installation: z.number().int().min(1).max(100000).default(100),
        /** Absent from a caller that is not a schedule (an operator's one-off cleanup): done every time. */
        tick_at: tickAt.optional(),
      })
      .strict(),
    reply: z.object({ removed: z.number().int(), repeated }),
  }),
} as const;

export const scheduleNames = ['credential_validation', 'template_health', 'log_cleanup'] as const;
export const scheduleName = z.enum(scheduleNames);
export type ScheduleName = z.infer<typeof scheduleName>;

export const scheduleStatus = z.object({
  schedule: scheduleName,
  every_ms: z.number().int(),
  next_run_at: isoTimestamp.nullable(),
  last_run: z
    .object({
      started_at: isoTimestamp,
      finished_at: isoTimestamp.nullable(),
      duration_ms: z.number().nullable(),
      outcome: z.enum(['succeeded', 'failed', 'retrying']),
      attempts: z.number().int(),
      result: z.record(z.string(), z.unknown()).nullable(),
      error: z.string().nullable(),
    })
    .nullable(),
  failed_last_24h: z.number().int(),
});
export type ScheduleStatus = z.infer<typeof scheduleStatus>;

export const jobsStatusSubject = defineSubject({
  subject: 'jobs.status.get',
  service: 'jobs',
  description: 'Last run, duration and outcome of each schedule, for operators (global admins).',
  access: globalAccess('jobs.view'),
  request: emptyRequest,
  reply: z.array(scheduleStatus),
});
