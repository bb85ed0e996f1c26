import type { InstallationStatus } from '@orbital/contracts';
import type { ServerSnapshot } from '../runtime/managedServer.ts';

/**
 * The servers in the health answer (`GET /`). The satellite answers 200 whatever its servers do (one
 * server starting or failing must not take the satellite out of a load balancer), and says here which
 * are online, which are still starting and which are retrying or failed. `detailed` adds each server's
 * name, state and reason: only without client authentication, where `/mcp` already tells any caller the
 * same; with authentication the health check, which anyone can reach, shows counts only.
 */
export function describeServers(snapshots: readonly ServerSnapshot[], detailed: boolean) {
  const byStatus: Partial<Record<InstallationStatus, number>> = {};
  for (const server of snapshots) byStatus[server.status] = (byStatus[server.status] ?? 0) + 1;
  const count = (statuses: InstallationStatus[]) => statuses.reduce((sum, status) => sum + (byStatus[status] ?? 0), 0);
  return {
    total: snapshots.length,
    online: byStatus.online ?? 0,
    /** Not yet through their first start. */
    starting: count(['provisioning', 'connecting', 'discovering_tools']),
    /** Waiting to try again (a crashed process, an unreachable remote server) or failed for good. */
    failing: count(['restarting', 'offline', 'permanently_failed']),
    by_status: byStatus,
    ...(detailed
      ? {
          list: snapshots.map((s) => ({
            server_name: s.server_name,
            transport: s.transport,
            status: s.status,
            state: s.state,
            reason: s.status_reason,
          })),
        }
      : {}),
  };
}
