import { type Bus, encodeEvent, publishEvent } from '@orbital/bus';
import { type EventDef, type EventInputOf, eventTokensOf, isEventSubject } from '@orbital/contracts';
import { type CommonQueryMethods, createOutboxFlush, type LivePool, sql } from '@orbital/db';
import type { Logger } from '@orbital/logger';
import { z } from 'zod';

export type OutboxCommand = {
  command_type: 'configure' | 'health_check';
  priority: 'immediate' | 'high' | 'normal' | 'low';
  payload: Record<string, unknown>;
  /** Unique per intended command: queueing the same one twice (a retried job tick) stores it once. */
  correlation_id: string;
};

/** Queues a command in the caller's transaction; it is delivered to the registry after commit. */
export async function queueCommand(db: CommonQueryMethods, command: OutboxCommand): Promise<boolean> {
  const result = await db.query(sql.unsafe`
    INSERT INTO command_outbox (command_type, priority, payload, correlation_id)
    VALUES (${command.command_type}, ${command.priority}, ${sql.jsonb(command.payload as never)}, ${command.correlation_id})
    ON CONFLICT (correlation_id) DO NOTHING`);
  return result.rowCount > 0;
}

/**
 * Queues an event in the caller's transaction, checked against its definition now (a breach fails the
 * transaction, not the relay later); it is published after commit.
 */
export async function queueEvent<E extends EventDef>(
  db: CommonQueryMethods,
  def: E,
  payload: EventInputOf<E>,
): Promise<void> {
  const { subject, data } = encodeEvent(def, payload);
  await db.query(sql.unsafe`INSERT INTO event_outbox (subject, payload) VALUES (${subject}, ${data}::jsonb)`);
}

/**
 * Runs a change in one transaction, then has the relay deliver what it queued at once (the relay retries
 * anything that fails). The change's result is returned after the delivery attempt.
 */
export async function inRelayedTransaction<T>(
  pool: LivePool,
  relay: OutboxRelay,
  run: (tx: CommonQueryMethods) => Promise<T>,
): Promise<T> {
  const result = await pool.get().transaction(run);
  await relay.flush();
  return result;
}

/** Sends one command to the registry, which queues it for every satellite serving the payload's team. */
export type SendCommand = (command: OutboxCommand) => Promise<void>;

export type OutboxRelay = {
  /** Delivers what is due now; never throws (what fails stays for the next attempt). */
  flush(): Promise<void>;
  start(): void;
  stop(): Promise<void>;
};

const commandRow = z.object({
  id: z.string(),
  command_type: z.enum(['configure', 'health_check']),
  priority: z.enum(['immediate', 'high', 'normal', 'low']),
  payload: z.record(z.string(), z.unknown()),
  correlation_id: z.string(),
  attempts: z.number(),
});
const eventRow = z.object({ id: z.string(), subject: z.string(), payload: z.unknown() });

/**
 * The transactional outbox: changes write their commands and events in their own transaction, and this
 * relay delivers them right after commit and again every `intervalMs` while the registry or JetStream
 * is unreachable. Rows are claimed with SKIP LOCKED, so replicas share the work without sending twice.
 */
export function createOutboxRelay(deps: {
  pool: LivePool;
  bus: Bus;
  logger: Logger;
  /** The events this service queues; a row is published as the one whose subject it has. */
  events: readonly EventDef[];
  sendCommand: SendCommand;
  intervalMs?: number;
}): OutboxRelay {
  const { pool, bus, logger } = deps;
  let timer: NodeJS.Timeout | null = null;

  async function publishEvents(): Promise<void> {
    await pool.get().transaction(async (tx) => {
      const rows = await tx.any(sql.type(eventRow)`
        SELECT id, subject, payload FROM event_outbox ORDER BY seq LIMIT 200 FOR UPDATE SKIP LOCKED`);
      for (const row of rows) {
        const def = deps.events.find((event) => isEventSubject(event, row.subject));
        if (!def) {
          // Kept, not dropped: a row of an event this build does not know waits for one that does.
          logger.error({ subject: row.subject, outbox_id: row.id }, 'outbox row of an unknown event left in place');
          continue;
        }
        // The outbox id is the message id: a publish repeated after a failed delete is stored once.
        await publishEvent(bus, def, row.payload as EventInputOf<typeof def>, {
          msgId: row.id,
          tokens: eventTokensOf(def, row.subject),
        });
        await tx.query(sql.unsafe`DELETE FROM event_outbox WHERE id = ${row.id}`);
      }
    });
  }

  async function sendCommands(): Promise<void> {
    await pool.get().transaction(async (tx) => {
      const rows = await tx.any(sql.type(commandRow)`
        SELECT id, command_type, priority, payload, correlation_id, attempts FROM command_outbox
        WHERE delivered_at IS NULL AND next_attempt_at <= now() ORDER BY created_at LIMIT 100 FOR UPDATE SKIP LOCKED`);
      for (const row of rows) {
        try {
          await deps.sendCommand(row);
          await tx.query(sql.unsafe`UPDATE command_outbox SET delivered_at = now() WHERE id = ${row.id}`);
        } catch (error) {
          const delaySeconds = Math.min(300, 2 ** Math.min(row.attempts, 8));
          logger.warn(
            { err: error, correlation_id: row.correlation_id },
            'command not delivered to the registry; will retry',
          );
          await tx.query(sql.unsafe`
            UPDATE command_outbox SET attempts = attempts + 1, last_error = ${String((error as Error).message)},
              next_attempt_at = now() + make_interval(secs => ${delaySeconds}) WHERE id = ${row.id}`);
        }
      }
    });
  }

  async function once(): Promise<void> {
    if (!pool.isReady()) return;
    await publishEvents().catch((err: unknown) => logger.warn({ err }, 'domain events not published; will retry'));
    await sendCommands().catch((err: unknown) => logger.warn({ err }, 'command outbox failed; will retry'));
  }

  async function purgeDelivered(): Promise<void> {
    if (!pool.isReady()) return;
    await pool
      .get()
      .query(sql.unsafe`DELETE FROM command_outbox WHERE delivered_at < now() - interval '1 day'`)
      .catch((err: unknown) => logger.warn({ err }, 'purge of delivered commands failed'));
  }

  // One pass at a time; a flush asked for during one (a row committed meanwhile) gets one more.
  const passes = createOutboxFlush(once);
  const flush = passes.flush;

  return {
    flush,
    start() {
      let ticks = 0;
      timer ??= setInterval(() => {
        void flush();
        if (++ticks % 720 === 0) void purgeDelivered();
      }, deps.intervalMs ?? 5000);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      await passes.stop();
    },
  };
}
