import type { Bus } from '@orbital/bus';
import { auditRecordBatchMax, auditSubjects, type ProcessName, serviceIdentity } from '@orbital/contracts';
import { createOutboxFlush, type DatabaseTransactionConnection, type LivePool, sql } from '@orbital/db';
import { toAppError } from '@orbital/errors';
import type { Logger } from '@orbital/logger';
import { z } from 'zod';

export type AuditRelay = {
  /** Delivers what is due now; never throws (what fails stays for a later attempt). */
  flush(): Promise<void>;
  start(): void;
  stop(): Promise<void>;
};

const outboxRow = z.object({ seq: z.string(), entry: z.record(z.string(), z.unknown()), attempts: z.number() });
type OutboxRow = z.infer<typeof outboxRow>;

/** Back-off of a batch the audit log did not take (it was away): 2, 4, 8 ... seconds, at most a minute. */
function retryDelaySeconds(attempts: number): number {
  return Math.min(60, 2 ** Math.min(attempts + 1, 6));
}

/** An entry the audit log refused by itself (a newer contract than the log's): tried again hourly, kept. */
const refusedRetrySeconds = 3600;

/**
 * Delivers the entries a service recorded in its `audit_outbox` to the audit log (`audit.entry.record`),
 * soon after they commit: every `intervalMs`, and at once on `flush()`. Rows are claimed with SKIP LOCKED,
 * so replicas share the work, and deleted only once the log has stored them; the log stores each entry
 * once by id, so a delivery repeated after a lost reply changes nothing.
 *
 * Nothing is dropped. While the log is away the rows stay, tried again with back-off. A batch the log
 * refuses as a whole is sent again entry by entry, so one entry it cannot take (recorded by a newer build
 * than the log's) waits alone, retried hourly and logged, while its neighbours are delivered.
 */
export function createAuditRelay(deps: {
  pool: LivePool;
  bus: Bus;
  logger: Logger;
  /** The process that recorded the entries: it delivers them as itself, and the log names it their source. */
  source: ProcessName;
  intervalMs?: number;
}): AuditRelay {
  const { pool, bus, source } = deps;
  const logger = deps.logger.child({ component: 'audit-relay' });
  const identity = serviceIdentity(source);
  let timer: NodeJS.Timeout | null = null;

  const send = (rows: readonly OutboxRow[]) =>
    bus.request(auditSubjects.record, { entries: rows.map((row) => row.entry as never) }, { identity });

  async function settle(tx: DatabaseTransactionConnection, delivered: readonly OutboxRow[]): Promise<void> {
    if (delivered.length === 0) return;
    await tx.query(
      sql.unsafe`DELETE FROM audit_outbox WHERE seq = ANY(${sql.array(
        delivered.map((row) => row.seq),
        'int8',
      )})`,
    );
  }

  async function postpone(
    tx: DatabaseTransactionConnection,
    rows: readonly OutboxRow[],
    error: unknown,
    seconds?: number,
  ) {
    const message = toAppError(error).message.slice(0, 500);
    for (const row of rows) {
      const delay = seconds ?? retryDelaySeconds(row.attempts);
      await tx.query(sql.unsafe`
        UPDATE audit_outbox SET attempts = attempts + 1, last_error = ${message},
          next_attempt_at = now() + make_interval(secs => ${delay}) WHERE seq = ${row.seq}::int8`);
    }
  }

  /** One batch; true when it was full, so there may be more due. */
  async function deliverBatch(): Promise<boolean> {
    return pool.get().transaction(async (tx) => {
      const rows = await tx.any(sql.type(outboxRow)`
        SELECT seq::text AS seq, entry, attempts FROM audit_outbox WHERE next_attempt_at <= now()
        ORDER BY seq LIMIT ${auditRecordBatchMax} FOR UPDATE SKIP LOCKED`);
      if (rows.length === 0) return false;
      try {
        await send(rows);
        await settle(tx, rows);
        return rows.length === auditRecordBatchMax;
      } catch (error) {
        if (toAppError(error).code !== 'validation_failed' || rows.length === 1) {
          logWhy(error, rows.length);
          await postpone(tx, rows, error, refusedIfSo(error));
          return false;
        }
      }
      // The log refused the batch: find the entries it refuses, deliver the others.
      const delivered: OutboxRow[] = [];
      for (const row of rows) {
        try {
          await send([row]);
          delivered.push(row);
        } catch (error) {
          logWhy(error, 1);
          await postpone(tx, [row], error, refusedIfSo(error));
        }
      }
      await settle(tx, delivered);
      return false;
    });
  }

  function refusedIfSo(error: unknown): number | undefined {
    return toAppError(error).code === 'validation_failed' ? refusedRetrySeconds : undefined;
  }

  function logWhy(error: unknown, count: number): void {
    const appError = toAppError(error);
    if (appError.code === 'validation_failed') {
      logger.error({ err: appError, count }, 'the audit log refused entries; they are kept and tried again hourly');
    } else {
      logger.warn({ code: appError.code, count }, 'audit entries not delivered yet; they are kept and tried again');
    }
  }

  async function once(): Promise<void> {
    if (!pool.isReady()) return;
    try {
      // A cheap look first: most ticks find nothing, and need no transaction for that.
      const due = await pool.get().exists(sql.unsafe`SELECT 1 FROM audit_outbox WHERE next_attempt_at <= now()`);
      if (!due) return;
      while (await deliverBatch()) {}
    } catch (err) {
      logger.warn({ err }, 'audit outbox not read; will retry');
    }
  }

  // One pass at a time; a flush asked for during one (an entry committed meanwhile) gets one more.
  const passes = createOutboxFlush(once);
  const flush = passes.flush;

  return {
    flush,
    start() {
      timer ??= setInterval(() => void flush(), deps.intervalMs ?? 1000);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      await passes.stop();
    },
  };
}
