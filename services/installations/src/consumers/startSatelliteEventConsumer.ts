import { type Bus, consumeDurable, type DurableConsumer, type JsMsg } from '@orbital/bus';
import { type EventDef, mcpSatelliteEventBatches, mcpSatelliteEvents } from '@orbital/contracts';
import { classifyDatabaseError } from '@orbital/db';
import type { Logger } from '@orbital/logger';
import type { SatelliteEventDeps } from './satelliteEventDeps.ts';
import { type DeliveredEvents, storeSatelliteEventBatch } from './storeSatelliteEventBatch.ts';

export type ConsumerHandle = { stop(): Promise<void> };

/** The durable consumer of single events, shared by the replicas (and watched for lag by main.ts). */
export const satelliteEventsDurable = 'installations_satellite_events';
/** The durable consumer of event batches (one message per run of one type, as gateway-api stores them). */
export const satelliteEventBatchesDurable = 'installations_satellite_event_batches';

/**
 * The installations service's durable consumers of satellite events (server events, tool executions,
 * discovered tools, stderr batches, client sessions): one reads the batches gateway-api stores, the
 * other the single events an older gateway-api stored, so none is stranded by an upgrade. Two durables
 * because the two shapes need two filters and the NATS server may be older than 2.10 (one filter per
 * consumer). The stream belongs to the event pipeline; while it does not exist yet each consumer looks
 * again every `retryMs`, so the services can start in any order.
 */
export function startSatelliteEventConsumer(
  deps: SatelliteEventDeps & { bus: Bus; logger: Logger },
  options: { retryMs: number },
): ConsumerHandle {
  const handles = [
    // Up to 100 events a message: ten messages make a transaction of about a thousand rows, and at most
    // a hundred messages are held, so a backlog never sits in memory by the hundred thousand.
    startOne(
      deps,
      { ...options, maxMessages: 10, maxPending: 100 },
      satelliteEventBatchesDurable,
      mcpSatelliteEventBatches,
    ),
    startOne(deps, { ...options, maxMessages: 500 }, satelliteEventsDurable, mcpSatelliteEvents),
  ];
  return {
    async stop() {
      await Promise.all(handles.map((handle) => handle.stop()));
    },
  };
}

function startOne<E extends EventDef>(
  deps: SatelliteEventDeps & { bus: Bus; logger: Logger },
  options: { retryMs: number; maxMessages: number; maxPending?: number },
  durable: string,
  events: readonly E[],
): ConsumerHandle {
  let consumer: DurableConsumer | null = null;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  // The payloads are what `events` define: a single satellite event, or a run of them.
  const store = (items: Array<{ payload: unknown; message: JsMsg }>) =>
    storeSatelliteEventBatch(deps, items as DeliveredEvents[]);

  const attempt = async () => {
    if (stopped) return;
    try {
      consumer = await consumeDurable(deps.bus, {
        // Every MCP event (or batch) of every satellite, read through one filter.
        events,
        durable,
        handler: async (payload, message) => {
          await store([{ payload, message }]);
        },
        logger: deps.logger,
        // What waits is stored together: a few statements per batch instead of a transaction per event.
        batch: {
          handler: async (items) => {
            await store(items);
          },
          maxMessages: options.maxMessages,
        },
        ...(options.maxPending ? { maxPending: options.maxPending } : {}),
        // A database outage or a lost race waits and is tried again; a row PostgreSQL refuses is parked.
        classifyError: classifyDatabaseError,
      });
      if (stopped) await consumer.stop();
      else deps.logger.info({ durable }, 'consuming satellite events');
    } catch (err) {
      deps.logger.warn({ err, durable }, 'satellite event stream not available yet; will retry');
      timer = setTimeout(() => void attempt(), options.retryMs);
      timer.unref();
    }
  };
  void attempt();

  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await consumer?.stop();
    },
  };
}
