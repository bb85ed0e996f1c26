import { type Bus, consumeDurable, type DurableConsumer } from '@orbital/bus';
import { headerNames, mcpSatelliteEvents } from '@orbital/contracts';
import { classifyDatabaseError } from '@orbital/db';
import type { Logger } from '@orbital/logger';
import { handleSatelliteEvent } from './handleSatelliteEvent.ts';
import type { SatelliteEventDeps } from './satelliteEventDeps.ts';
import { storeSatelliteEventBatch } from './storeSatelliteEventBatch.ts';

export type ConsumerHandle = { stop(): Promise<void> };

/** The durable consumer's name, shared by the replicas (and watched for lag by main.ts). */
export const satelliteEventsDurable = 'installations_satellite_events';

/**
 * The installations service's durable consumer of satellite events (server events, tool executions,
 * discovered tools, stderr batches, client sessions). The stream belongs to the event pipeline; while it does not exist
 * yet the consumer looks again every `retryMs`, so the services can start in any order.
 */
export function startSatelliteEventConsumer(
  deps: SatelliteEventDeps & { bus: Bus; logger: Logger },
  options: { retryMs: number },
): ConsumerHandle {
  let consumer: DurableConsumer | null = null;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;

  const attempt = async () => {
    if (stopped) return;
    try {
      consumer = await consumeDurable(deps.bus, {
        // Every MCP event of every satellite, read through one filter (NATS 2.9 knows no filter_subjects).
        events: mcpSatelliteEvents,
        durable: satelliteEventsDurable,
        handler: (payload, message) =>
          handleSatelliteEvent(deps, payload, {
            satelliteId: message.headers?.get(headerNames.satelliteId) || null,
            teamId: message.headers?.get(headerNames.teamId) || null,
          }),
        logger: deps.logger,
        // What waits is stored together: a few statements per batch instead of a transaction per event.
        batch: { handler: (items) => storeSatelliteEventBatch(deps, items), maxMessages: 500 },
        // A database outage or a lost race waits and is tried again; a row PostgreSQL refuses is parked.
        classifyError: classifyDatabaseError,
      });
      if (stopped) await consumer.stop();
      else deps.logger.info({ durable: satelliteEventsDurable }, 'consuming satellite events');
    } catch (err) {
      deps.logger.warn({ err }, 'satellite event stream not available yet; will retry');
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
