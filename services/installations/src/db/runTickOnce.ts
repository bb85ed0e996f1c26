import type { ScheduleName } from '@orbital/contracts';
import { type DatabaseTransactionConnection, type LivePool, sql } from '@orbital/db';
import { z } from 'zod';

const recorded = z.object({ result: z.record(z.string(), z.unknown()) });

/** How long a done tick is remembered: far longer than any retry or takeover of a tick can take. */
export const tickMemoryDays = 1;

/**
 * Does one scheduled tick's work at most once, however often and from however many replicas it is asked
 * for. The work and the tick's row in `job_ticks` commit in one transaction, so either both happened or
 * neither did; a tick asked for again finds the row and gets the reply recorded then (`repeated: true`).
 * A transaction-scoped advisory lock per schedule serialises the ticks of one schedule across replicas:
 * a second request for a tick still running waits for it and then finds its row, and a slow tick never
 * overlaps the next one of its schedule.
 *
 * Without a tick time (a one-off request from an operator) the work is simply done. `recordAs` shortens
 * what is kept of a large reply (a repeated tick then gets that shorter reply).
 */
export async function runTickOnce<R extends Record<string, unknown>>(
  pool: LivePool,
  schedule: ScheduleName,
  tickAt: string | undefined,
  work: (tx: DatabaseTransactionConnection) => Promise<R>,
  recordAs: (result: R) => R = (result) => result,
): Promise<R & { repeated?: true }> {
  return pool.get().transaction(async (tx) => {
    await tx.query(sql.unsafe`SELECT pg_advisory_xact_lock(hashtextextended(${`installations.job.${schedule}`}, 0))`);
    if (tickAt === undefined) return work(tx);
    const done = await tx.maybeOne(
      sql.type(
        recorded,
      )`SELECT result FROM job_ticks WHERE schedule = ${schedule} AND tick_at = ${tickAt}::timestamptz`,
    );
    if (done) return { ...(done.result as R), repeated: true };
    const result = await work(tx);
    await tx.query(sql.unsafe`
      INSERT INTO job_ticks (schedule, tick_at, result) VALUES (${schedule}, ${tickAt}::timestamptz, ${sql.jsonb(recordAs(result) as never)})`);
    return result;
  });
}

/** Forgets ticks done more than `tickMemoryDays` ago (part of the log cleanup tick). */
export async function forgetOldTicks(db: DatabaseTransactionConnection): Promise<number> {
  const result = await db.query(
    sql.unsafe`DELETE FROM job_ticks WHERE done_at < now() - make_interval(days => ${tickMemoryDays})`,
  );
  return result.rowCount;
}
