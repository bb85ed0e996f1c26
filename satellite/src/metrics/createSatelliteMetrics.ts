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
  if (sources.sessionlessClients) {
    const clients = sources.sessionlessClients;
    metrics.gauge(
      'orbital_satellite_sessionless_clients',
      '2026-07-28 clients followed for the recent clients list, and those not followed (refused a place) in the last sweep interval',
      ['state'],
      (gauge) => {
        const counts = clients();
        gauge.set({ state: 'followed' }, counts.followed);
        gauge.set({ state: 'not_followed' }, counts.notFollowed);
      },
    );
  }
  if (sources.events) {
    const events = sources.events;
    metrics.gauge('orbital_satellite_event_queue', 'Event queue statistics', ['stat'], (gauge) => {
      const stats = events();
      gauge.set({ stat: 'queue_size' }, stats.queueSize);
      gauge.set({ stat: 'emitted' }, stats.totalEmitted);
      gauge.set({ stat: 'sent' }, stats.totalSent);
      gauge.set({ stat: 'failed' }, stats.totalFailed);
      gauge.set({ stat: 'dropped' }, stats.totalDropped);
    });
  }
  if (sources.discovery) {
    const discovery = sources.discovery;
    metrics.gauge(
      'orbital_satellite_discovery_calls',
      'discover_mcp_tools calls since start, by how they were ranked (operators, words, words+meaning)',
      ['ranking'],
      (gauge) => {
        for (const [ranking, count] of Object.entries(discovery().calls)) gauge.set({ ranking }, count);
      },
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
    metrics.gauge(
      'orbital_satellite_discovery_tool_vectors',
      'Tool vectors held for discovery by meaning, and texts still waiting to be embedded',
      ['state'],
      (gauge) => {
        const { embedded, pending } = discovery().vectors;
        gauge.set({ state: 'embedded' }, embedded);
        gauge.set({ state: 'pending' }, pending);
      },
    );
  }
  return metrics;
}
