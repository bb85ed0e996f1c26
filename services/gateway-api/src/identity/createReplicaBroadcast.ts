import { randomUUID } from 'node:crypto';
import type { Subscription } from '@nats-io/transport-node';
import type { Bus } from '@orbital/bus';
import {
  type BroadcastDef,
  replicaAck,
  replicaAnnouncementBroadcast,
  type SessionInvalidation,
  sessionInvalidationBroadcast,
} from '@orbital/contracts';
import type { Logger } from '@orbital/logger';
import type { SessionCache } from './createSessionCache.ts';

export type ReplicaBroadcastOptions = {
  bus: Bus;
  cache: SessionCache;
  logger: Logger;
  /** How long a revocation waits for the other replicas to confirm their eviction. */
  ackTimeoutMs?: number;
  replicaId?: string;
};

/**
 * Keeps the session caches of every gateway-api replica coherent.
 *
 * Each replica subscribes to the invalidation subject without a queue group, so every replica gets
 * every invalidation. A replica that revokes a session evicts it locally, publishes the invalidation
 * and waits (up to ackTimeoutMs) until every replica it knows of has replied that it evicted too; only
 * then does the revoking request answer. So the next request, on any replica, misses the cache and
 * finds the session revoked in PostgreSQL.
 *
 * Replicas know each other from announcements: a starting (or reconnecting) replica announces itself and
 * every other replica records it and replies with its own id. A replica that misses the ack deadline is
 * dropped from the known set (and logged); any later message from it adds it back.
 */
export function createReplicaBroadcast(options: ReplicaBroadcastOptions) {
  const { bus, cache, logger } = options;
  const replicaId = options.replicaId ?? randomUUID();
  const ackTimeoutMs = options.ackTimeoutMs ?? 1000;
  const known = new Set<string>();
  const subscriptions: Subscription[] = [];
  let statusLoop: Promise<void> | null = null;

  const remember = (id: string) => {
    if (id !== replicaId) known.add(id);
  };
  const ack = { replica_id: replicaId };

  function subscribe() {
    subscriptions.push(
      bus.listen(sessionInvalidationBroadcast, (invalidation) => {
        cache.evict(invalidation);
        return ack;
      }),
      bus.listen(replicaAnnouncementBroadcast, (announced) => {
        remember(announced.replica_id);
        return ack;
      }),
    );
  }

  /**
   * Publishes `payload` to every replica and collects the replies. Finishes when every id in `expected`
   * replied, or (with `stallMs`) when no reply came for that long, or at `waitMs` at the latest.
   */
  async function scatter<B extends BroadcastDef>(
    def: B,
    payload: Parameters<typeof bus.broadcast<B>>[1],
    wait: { expected: ReadonlySet<string>; waitMs: number; stallMs?: number },
  ) {
    const pending = new Set(wait.expected);
    const inbox = bus.createInbox();
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => finish(), wait.waitMs);
      let stall: ReturnType<typeof setTimeout> | undefined;
      const finish = () => {
        clearTimeout(timer);
        clearTimeout(stall);
        sub.unsubscribe();
        resolve();
      };
      const sub = bus.connection.subscribe(inbox, {
        callback: (error, msg) => {
          if (error) return;
          const parsed = replicaAck.safeParse(safeJson(msg.data));
          if (!parsed.success) return;
          remember(parsed.data.replica_id);
          pending.delete(parsed.data.replica_id);
          if (wait.stallMs !== undefined) {
            clearTimeout(stall);
            stall = setTimeout(finish, wait.stallMs);
          } else if (pending.size === 0) {
            finish();
          }
        },
      });
      bus.broadcast(def, payload, { replyTo: inbox });
      if (wait.stallMs === undefined && pending.size === 0) {
        // Nobody to wait for: make sure the message reached the server, then answer.
        void bus.connection.flush().then(finish, finish);
      }
    });
    return { pending };
  }

  /** Every running replica (this one too) replies; collect until the replies stop coming. */
  const announce = () =>
    scatter(replicaAnnouncementBroadcast, ack, { expected: new Set(), waitMs: 2000, stallMs: 200 });

  return {
    replicaId,
    knownReplicas: () => [...known],
    async start() {
      subscribe();
      await bus.flush();
      await announce();
      statusLoop = (async () => {
        for await (const status of bus.connection.status()) {
          if (status.type === 'disconnect') {
            logger.warn('NATS disconnected: session cache off until reconnected');
            cache.setEnabled(false);
          } else if (status.type === 'reconnect') {
            cache.setEnabled(true);
            void announce().catch(() => {});
          }
        }
      })();
    },
    /** Evicts here and on every known replica; resolves once they confirmed or the deadline passed. */
    async invalidate(invalidation: SessionInvalidation): Promise<void> {
      cache.evict(invalidation);
      const { pending } = await scatter(sessionInvalidationBroadcast, invalidation, {
        expected: new Set(known),
        waitMs: ackTimeoutMs,
      });
      for (const missing of pending) {
        known.delete(missing);
        logger.warn(
          { replica: missing },
          'a gateway replica did not confirm a session eviction in time; dropped from the known replicas',
        );
      }
    },
    async stop() {
      for (const sub of subscriptions) sub.unsubscribe();
      subscriptions.length = 0;
      void statusLoop;
    },
  };
}

export type ReplicaBroadcast = ReturnType<typeof createReplicaBroadcast>;

function safeJson(data: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(data));
  } catch {
    return null;
  }
}
