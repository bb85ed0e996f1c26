import {
  logEnv,
  natsEnv,
  natsProductionVariables,
  positiveInt,
  redisEnv,
  redisProductionVariables,
  requireInProduction,
} from '@orbital/config';
import { z } from 'zod';

export const configSchema = requireInProduction(
  z.object({
    ...natsEnv.shape,
    ...redisEnv.shape,
    ...logEnv.shape,
    // The three schedules: every 1, 3 and 10 minutes. Shortened in tests; changing one
    // re-times that schedule on the next start (the last replica to start sets it for all).
    JOBS_CREDENTIAL_VALIDATION_EVERY_MS: positiveInt.default(60_000),
    JOBS_TEMPLATE_HEALTH_EVERY_MS: positiveInt.default(180_000),
    JOBS_LOG_CLEANUP_EVERY_MS: positiveInt.default(600_000),
    // Each installation's credentials are validated once per this many minutes, spread over the ticks.
    JOBS_CREDENTIAL_ROTATION_MINUTES: z.coerce.number().int().min(1).max(1440).default(15),
    // Server log lines kept per installation by the cleanup: 100 by default, enough to see a crash and
    // what led to it.
    JOBS_LOG_LINES_KEPT: z.coerce.number().int().min(1).max(100_000).default(100),
    // Attempts per tick before it is marked failed, and the first retry delay (doubled each retry).
    JOBS_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(5),
    JOBS_BACKOFF_MS: positiveInt.default(5_000),
    // How long a tick waits for the owning service; cleanup of millions of rows can take longer than
    // an ordinary request, and a timed-out tick is retried (the work is idempotent).
    JOBS_WORK_TIMEOUT_MS: positiveInt.default(120_000),
    // For this long after start, a tick the owning service cannot take yet (it is starting, or waits for
    // database setup) is retried quietly instead of warned about: the platform's processes start together.
    JOBS_START_GRACE_MS: z.coerce.number().int().min(0).max(3_600_000).default(120_000),
    // How long a replica holds a running tick without renewing its claim (renewed every half of it). A
    // replica killed mid-tick loses the tick this long (plus half of it, the stalled-tick check) later, and
    // another replica runs it again with the same tick time, which the owning service does once.
    JOBS_LOCK_MS: z.coerce.number().int().min(1000).max(600_000).default(15_000),
    // How long shutdown waits for a running tick before leaving it to another replica (stalled-job recovery).
    JOBS_SHUTDOWN_GRACE_MS: positiveInt.default(10_000),
    // How often each replica looks for schedules missing from Redis (restarted empty, keys evicted) and puts
    // them back; also whenever its Redis connection is ready again. A quarter of the shortest schedule, so a
    // lost schedule misses at most one tick.
    JOBS_SCHEDULE_CHECK_MS: z.coerce.number().int().min(100).max(600_000).default(15_000),
  }),
  [...natsProductionVariables, ...redisProductionVariables],
);

export type Config = z.infer<typeof configSchema>;
