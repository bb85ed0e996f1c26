import type { BusObserver } from '@orbital/bus';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

export type ServiceMetrics = {
  registry: Registry;
  busObserver: BusObserver;
  /** For services that count their own things (queue depths, consumer lag, processes). */
  /** `collect` runs at every scrape, for values read from elsewhere (a queue, a server) just in time. */
  gauge(name: string, help: string, labelNames?: string[], collect?: (gauge: Gauge) => Promise<void> | void): Gauge;
  counter(name: string, help: string, labelNames?: string[]): Counter;
  histogram(name: string, help: string, labelNames?: string[], buckets?: number[]): Histogram;
};

const latencyBuckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * One Prometheus registry per process: Node's default metrics (event loop lag, heap, GC, handles) and
 * NATS request latency by subject and outcome, both directions. Every series carries `service`.
 */
export function createMetrics(service: string): ServiceMetrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  const histogram: ServiceMetrics['histogram'] = (name, help, labelNames = [], buckets = latencyBuckets) =>
    new Histogram({ name, help, labelNames, buckets, registers: [registry] });
  const sent = histogram(
    'orbital_nats_request_duration_seconds',
    'NATS requests this process sent, by subject and outcome (ok or error code)',
    ['subject', 'outcome'],
  );
  const handled = histogram(
    'orbital_nats_handler_duration_seconds',
    'NATS requests this process answered, by subject and outcome (ok or error code)',
    ['subject', 'outcome'],
  );
  return {
    registry,
    busObserver: {
      requestSent: (subject, seconds, outcome) => sent.observe({ subject, outcome }, seconds),
      requestHandled: (subject, seconds, outcome) => handled.observe({ subject, outcome }, seconds),
    },
    gauge: (name, help, labelNames = [], collect) =>
      new Gauge({
        name,
        help,
        labelNames,
        registers: [registry],
        ...(collect
          ? {
              async collect(this: Gauge) {
                await collect(this);
              },
            }
          : {}),
      }),
    counter: (name, help, labelNames = []) => new Counter({ name, help, labelNames, registers: [registry] }),
    histogram,
  };
}
