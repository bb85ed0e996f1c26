import { statfs } from 'node:fs/promises';
import os from 'node:os';
import type { HeartbeatBody, ServerConfiguration } from '@orbital/contracts';
import type { ServerSnapshot } from '../runtime/managedServer.ts';

const mb = (bytes: number) => Math.round((bytes / (1024 * 1024)) * 10) / 10;
const clampPercent = (value: number) => Math.min(100, Math.max(0, Math.round(value * 10) / 10));

function cpuTimes() {
  let idle = 0;
  let total = 0;
  for (const cpu of os.cpus()) {
    const t = cpu.times;
    idle += t.idle;
    total += t.user + t.nice + t.sys + t.idle + t.irq;
  }
  return { idle, total };
}

export type LinkHealth = {
  /** Records the fate of one backend call, for the heartbeat's network status. */
  record(ok: boolean): void;
  /** online: every call since the last heartbeat worked; degraded: some failed; offline: none worked. */
  statusAndReset(): 'online' | 'degraded' | 'offline';
};

export function createLinkHealth(): LinkHealth {
  let ok = 0;
  let failed = 0;
  return {
    record(success) {
      if (success) ok++;
      else failed++;
    },
    statusAndReset() {
      const status = failed === 0 ? 'online' : ok === 0 ? 'offline' : 'degraded';
      ok = 0;
      failed = 0;
      return status;
    },
  };
}

/**
 * The heartbeat's metrics: system CPU since the previous heartbeat,
 * memory, the disk holding the state directory, network status as the link saw it, process counts,
 * uptime; per process the runtime's status, health, request statistics and resource use (CPU as a
 * share of one core since the previous heartbeat).
 */
export function createMetricsCollector(options: {
  diskPath: string;
  snapshot: () => ServerSnapshot[];
  configuration: (installationId: string) => ServerConfiguration | undefined;
  linkHealth: LinkHealth;
  now?: () => number;
}) {
  const now = options.now ?? Date.now;
  let previousCpu = cpuTimes();
  const previousProcess = new Map<string, { pid: number; cpuSeconds: number; at: number }>();

  const cpuPercent = () => {
    const current = cpuTimes();
    const total = current.total - previousCpu.total;
    const idle = current.idle - previousCpu.idle;
    previousCpu = current;
    return total > 0 ? clampPercent(100 * (1 - idle / total)) : 0;
  };

  const disk = async () => {
    try {
      const info = await statfs(options.diskPath);
      return { used_mb: mb((info.blocks - info.bfree) * info.bsize), total_mb: mb(info.blocks * info.bsize) };
    } catch {
      return undefined;
    }
  };

  return async (): Promise<HeartbeatBody> => {
    const servers = options.snapshot();
    const at = now();
    const processes: HeartbeatBody['processes'] = servers.slice(0, 1000).map((server) => {
      const config = options.configuration(server.installation_id);
      let cpu: number | undefined;
      if (server.usage && server.process_id !== null) {
        const previous = previousProcess.get(server.installation_id);
        if (previous && previous.pid === server.process_id && at > previous.at) {
          cpu = clampPercent((100 * (server.usage.cpu_seconds - previous.cpuSeconds)) / ((at - previous.at) / 1000));
        }
        previousProcess.set(server.installation_id, {
          pid: server.process_id,
          cpuSeconds: server.usage.cpu_seconds,
          at,
        });
      }
      return {
        process_id: config?.process_id ?? server.installation_id,
        installation_id: server.installation_id,
        team_id: server.team_id,
        status: server.status,
        health: server.health,
        request_count: server.requests.request_count,
        ...(server.requests.avg_response_ms === null ? {} : { avg_response_time_ms: server.requests.avg_response_ms }),
        ...(server.requests.p95_response_ms === null ? {} : { p95_response_time_ms: server.requests.p95_response_ms }),
        ...(cpu === undefined ? {} : { cpu_percent: cpu }),
        ...(server.usage ? { memory_mb: mb(server.usage.memory_bytes) } : {}),
      };
    });
    const diskUsage = await disk();
    return {
      system: {
        cpu_percent: cpuPercent(),
        memory: { used_mb: mb(os.totalmem() - os.freemem()), total_mb: mb(os.totalmem()) },
        ...(diskUsage ? { disk: diskUsage } : {}),
        network_status: options.linkHealth.statusAndReset(),
        process_counts: {
          total: servers.length,
          running: servers.filter((s) => s.status === 'online').length,
          failed: servers.filter((s) => s.status === 'error' || s.status === 'permanently_failed').length,
        },
        uptime_seconds: Math.round(process.uptime()),
      },
      processes,
    };
  };
}
