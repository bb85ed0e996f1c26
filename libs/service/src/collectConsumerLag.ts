import { jetstreamManager } from '@nats-io/jetstream';
import { type Bus, durableName, streamName } from '@orbital/bus';
import type { ServiceMetrics } from './createMetrics.ts';

/**
 * JetStream consumer lag as a gauge read from the server at scrape time: messages not yet delivered
 * (`state="pending"`) and delivered but not acknowledged (`state="ack_pending"`). A consumer that does
 * not exist yet (schema not set up, stream not created) is left out of the scrape rather than failing it.
 */
export function collectConsumerLag(
  metrics: ServiceMetrics,
  bus: Bus,
  consumers: Array<{ stream: string; durable: string }>,
): void {
  metrics.gauge(
    'orbital_jetstream_consumer_lag_messages',
    'Messages of a durable consumer not yet delivered (pending) or not yet acknowledged (ack_pending)',
    ['stream', 'durable', 'state'],
    async (gauge) => {
      gauge.reset();
      const manager = await jetstreamManager(bus.connection);
      for (const { stream, durable } of consumers) {
        try {
          const info = await manager.consumers.info(streamName(bus, stream), durableName(bus, durable));
          gauge.set({ stream, durable, state: 'pending' }, info.num_pending);
          gauge.set({ stream, durable, state: 'ack_pending' }, info.num_ack_pending);
        } catch {
          // Not there yet: nothing to report for it.
        }
      }
    },
  );
}
