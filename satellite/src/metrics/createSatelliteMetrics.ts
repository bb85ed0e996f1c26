import { createMetrics, type ServiceMetrics } from '@orbital/service';
import type { EventQueueStats } from '../backend/createEventQueue.ts';
import type { ServerSnapshot } from '../runtime/managedServer.ts';
import type { DiscoveryStats } from '../search/createDiscoveryEngine.ts';

export type SatelliteMetricSources = {
  servers(): ServerSnapshot[];
  sessions(): number;
  /** 2026-07-28 clients followed for the recent clients list, and those refused a place in the last sweep interval. */
  sessionlessClients?: () => { followed: number; notFollowed: number };
  /** The backend link's event queue statistics (queued, sent, dropped, failed); absent in standalone mode. */
  events?: () => EventQueueStats;
  /** Discovery's statistics: calls by ranking, and the model endpoints' outcomes. */
  discovery?: () => DiscoveryStats;
};

/**
 * The satellite's Prometheus metrics, read at scrape time from what the runtime, the session store and
 * the event queue already count: servers by status, process states, per-process requests and errors,
 * open MCP sessions, and the event queue statistics. Servers are labelled by process id, never by
 * anything a client sent.
 */
export function createSatelliteMetrics(sources: SatelliteMetricSources): ServiceMetrics {
  const metrics = createMetrics('satellite');
  metrics.gauge(
    'orbital_satellite_servers',
    'MCP servers by installation status and transport',
    ['status', 'transport'],
    (gauge) => {
      gauge.reset();
      for (const server of sources.servers()) gauge.inc({ status: server.status, transport: server.transport });
    },
  );
  metrics.gauge(
    'orbital_satellite_processes',
    'stdio processes by lifecycle state (running, dormant, restarting, failed, ...)',
    ['state'],
    (gauge) => {
      gauge.reset();
      for (const server of sources.servers()) if (server.transport === 'stdio') gauge.inc({ state: server.state });
    },
  );
  metrics.gauge(
    'orbital_satellite_server_requests',
    'Tool calls a server has answered since it started, and how many failed',
    ['process_id', 'outcome'],
    (gauge) => {
      gauge.reset();
      for (const server of sources.servers()) {
        const processId = `${server.server_slug}-${server.installation_id}`;
        gauge.set(
          { process_id: processId, outcome: 'ok' },
          server.requests.request_count - server.requests.error_count,
        );
        gauge.set({ process_id: processId, outcome: 'error' }, server.requests.error_count);
      }
    },
  );
  metrics.gauge('orbital_satellite_sessions', 'Open MCP client sessions', [], (gauge) => {
    gauge.set(sources.sessions());
  });
  const { sessionlessClients, events, discovery } = sources;
  if (sessionlessClients) {
    gaugeByLabel(
      metrics,
      'orbital_satellite_sessionless_clients',
      '2026-07-28 clients followed for the recent clients list, and those not followed (refused a place) in the last sweep interval',
      'state',
      () => {
        const counts = sessionlessClients();
        return { followed: counts.followed, not_followed: counts.notFollowed };
      },
    );
  }
  if (events) {
    gaugeByLabel(metrics, 'orbital_satellite_event_queue', 'Event queue statistics', 'stat', () => {
      const stats = events();
      return {
        queue_size: stats.queueSize,
        emitted: stats.totalEmitted,
        sent: stats.totalSent,
        failed: stats.totalFailed,
        dropped: stats.totalDropped,
      };
    });
  }
  if (discovery) {
    gaugeByLabel(
      metrics,
      'orbital_satellite_discovery_calls',
      'discover_mcp_tools calls since start, by how they were ranked (operators, words, words+meaning)',
      'ranking',
      () => discovery().calls,
    );
    metrics.gauge(
      'orbital_satellite_discovery_model_calls',
      'Discovery calls that used a model endpoint, or answered from the word ranking without it, and why (timeout, error, skipped while it rests after a failure, warming_up)',
      ['endpoint', 'outcome'],
      (gauge) => {
        for (const [endpoint, outcomes] of Object.entries(discovery().models)) {
          for (const [outcome, count] of Object.entries(outcomes)) gauge.set({ endpoint, outcome }, count);
        }
      },
    );
    gaugeByLabel(
      metrics,
      'orbital_satellite_discovery_tool_vectors',
      'Tool vectors held for discovery by meaning, and texts still waiting to be embedded',
      'state',
      () => discovery().vectors,
    );
  }
  return metrics;
}

/**
 * A gauge of one label whose series are read at scrape time from `read`: one series a key, the key
 * as the label's value.
 */
function gaugeByLabel(
  metrics: ServiceMetrics,
  name: string,
  help: string,
  label: string,
  read: () => Record<string, number>,
): void {
  metrics.gauge(name, help, [label], (gauge) => {
    for (const [value, count] of Object.entries(read())) gauge.set({ [label]: value }, count);
  });
}
