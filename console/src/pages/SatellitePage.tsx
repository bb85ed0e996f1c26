import { useState } from 'react';
import { api, type SatelliteMetrics, type StreamUpdates, streams } from '../api/client.ts';
import { navigate } from '../app/router.tsx';
import { useSession } from '../app/session.tsx';
import { useEventStream } from '../app/useEventStream.ts';
import { useAction, useLoad } from '../app/useLoad.ts';
import { DataTable } from '../components/DataTable.tsx';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { Page } from '../components/Page.tsx';
import { Sparkline } from '../components/Sparkline.tsx';
import { StatusBadge } from '../components/StatusBadge.tsx';
import { StreamState } from '../components/StreamState.tsx';
import { When } from '../components/When.tsx';
import { satelliteState } from './satelliteState.ts';

const keptPoints = 60;

/** One satellite: what it is, and its heartbeats and processes as they arrive (the metrics stream). */
export function SatellitePage({ satelliteId }: { satelliteId: string }) {
  const session = useSession();
  const satellite = useLoad(() => api.satellites.get(satelliteId), [satelliteId]);
  const [metrics, setMetrics] = useState<SatelliteMetrics | undefined>();
  const stream = useEventStream<SatelliteMetrics, StreamUpdates['satelliteMetrics']>(
    streams.satelliteMetrics(satelliteId),
    {
      snapshot: setMetrics,
      update: (update) => {
        setMetrics((current) => {
          if (!current) return current;
          const replaced = new Set(update.processes.map((p) => p.process_id));
          return {
            ...current,
            heartbeats: [...update.heartbeats, ...current.heartbeats].slice(0, keptPoints),
            processes: [...update.processes, ...current.processes.filter((p) => !replaced.has(p.process_id))],
          };
        });
        // A heartbeat means the satellite is up: its status may have changed too.
        satellite.reload();
      },
    },
  );
  const revoke = useAction(async () => {
    await api.satellites.revoke(satelliteId);
    navigate('/satellites');
  });
  const s = satellite.data;
  const latest = metrics?.heartbeats[0];
  const canRevoke =
    s &&
    (s.satellite_type === 'global' ? session.isAdmin : s.team_id && session.canInTeam(s.team_id, 'satellites.manage'));

  return (
    <Page title={s ? `Satellite ${s.name}` : 'Satellite'}>
      <ErrorMessage error={satellite.error} />
      {s ? (
        <dl className="facts">
          <dt>Status</dt>
          <dd>
            <StatusBadge status={satelliteState(s)} />
          </dd>
          <dt>Type</dt>
          <dd>{s.satellite_type}</dd>
          <dt>Address for MCP clients</dt>
          <dd>{s.satellite_url ? <code>{s.satellite_url.replace(/\/$/, '')}/mcp</code> : 'not given'}</dd>
          <dt>Registered</dt>
          <dd>
            <When at={s.registered_at} />
          </dd>
          <dt>Last heartbeat</dt>
          <dd>
            <When at={s.last_heartbeat_at} />
          </dd>
          <dt>Capabilities</dt>
          <dd>{s.capabilities.join(', ') || 'none listed'}</dd>
        </dl>
      ) : null}
      <section aria-labelledby="metrics">
        <h2 id="metrics">
          Metrics <StreamState state={stream} />
        </h2>
        {latest ? (
          <div className="metric-grid">
            <div className="metric">
              <span className="metric-label">CPU</span>
              <span className="metric-value">{latest.cpu_percent.toFixed(1)} %</span>
              <Sparkline
                label="CPU over the last heartbeats"
                values={[...(metrics?.heartbeats ?? [])].reverse().map((h) => h.cpu_percent)}
                max={100}
              />
            </div>
            <div className="metric">
              <span className="metric-label">Memory</span>
              <span className="metric-value">
                {Math.round(latest.memory_used_mb)} / {Math.round(latest.memory_total_mb)} MB
              </span>
            </div>
            <div className="metric">
              <span className="metric-label">Processes</span>
              <span className="metric-value">
                {latest.process_running} running of {latest.process_total}
                {latest.process_failed > 0 ? `, ${latest.process_failed} failed` : ''}
              </span>
            </div>
            <div className="metric">
              <span className="metric-label">Network</span>
              <span className="metric-value">{latest.network_status}</span>
            </div>
            <div className="metric">
              <span className="metric-label">Up for</span>
              <span className="metric-value">{formatDuration(latest.uptime_seconds)}</span>
            </div>
          </div>
        ) : (
          <p className="muted">No heartbeat yet.</p>
        )}
        <DataTable
          caption="MCP server processes"
          showCaption
          rows={metrics?.processes}
          empty={null}
          rowKey={(p) => p.process_id}
          columns={[
            { header: 'Process', cell: (p) => <code>{p.process_id}</code> },
            { header: 'Status', cell: (p) => p.status },
            { header: 'Health', cell: (p) => <StatusBadge status={p.health} /> },
            { header: 'Requests', cell: (p) => p.request_count },
            {
              header: 'Avg. response',
              cell: (p) => (p.avg_response_time_ms === null ? '' : `${Math.round(p.avg_response_time_ms)} ms`),
            },
          ]}
        />
      </section>
      {canRevoke && s?.status !== 'revoked' ? (
        <section className="card danger-zone" aria-labelledby="revoke">
          <h2 id="revoke">Revoke this satellite</h2>
          <p>Its API key stops working at once; to bring it back, register it again with a new token.</p>
          <ErrorMessage error={revoke.error} />
          <button
            type="button"
            className="danger"
            onClick={() => {
              if (window.confirm(`Revoke satellite ${s?.name}?`)) void revoke.run();
            }}
          >
            Revoke satellite
          </button>
        </section>
      ) : null}
    </Page>
  );
}

function formatDuration(seconds: number): string {
  const s = Math.floor(seconds);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  return `${Math.floor(s / 86400)} d ${Math.floor((s % 86400) / 3600)} h`;
}
