import type { Bus } from '@orbital/bus';
import { jobWorkSubjects } from '@orbital/contracts';
import type { LivePool } from '@orbital/db';
import { deleteOldClientSessions } from '../db/clientSessionQueries.ts';
import { dueForCredentialValidation } from '../db/installationQueries.ts';
import { deleteOldLogLines } from '../db/monitoringQueries.ts';
import { forgetOldTicks, runTickOnce } from '../db/runTickOnce.ts';
import { aggregateTemplateHealth } from '../db/templateQueries.ts';
import { type OutboxRelay, queueCommand } from '../domain/outboxRelay.ts';

/** How long a client session stays listed after its last event. */
const clientSessionRetentionDays = 7;

/** Installation ids a done credential tick keeps for a repeated request (jobs records fewer). */
const recordedInstallationIds = 100;

/**
 * The work the jobs service schedules. Each tick is done once, by its tick time (runTickOnce): a retried
 * tick, or one a second jobs replica takes over, gets the recorded reply and changes nothing.
 */
export function serveJobSubjects(bus: Bus, deps: { pool: LivePool; relay: OutboxRelay }): void {
  bus.serve(jobWorkSubjects.credentialValidation, async (request) => {
    const result = await runTickOnce(
      deps.pool,
      'credential_validation',
      request.tick_at,
      async (tx) => {
        const due = await dueForCredentialValidation(tx, request.tick_at, request.rotation_minutes, request.every_ms);
        let queued = 0;
        for (const installation of due) {
          const fresh = await queueCommand(tx, {
            command_type: 'health_check',
            priority: 'normal',
            payload: {
              team_id: installation.team_id,
              check_type: 'credential_validation',
              installation_id: installation.id,
            },
            // One command per installation and tick (the outbox keeps correlation ids unique).
            correlation_id: `credential_validation:${installation.id}:${request.tick_at}`,
          });
          if (fresh) queued++;
        }
        return { due: due.length, queued, installation_ids: due.map((i) => i.id) };
      },
      (result) => ({ ...result, installation_ids: result.installation_ids.slice(0, recordedInstallationIds) }),
    );
    // Also for a repeated tick: its commands may still wait in the outbox if the first run stopped there.
    await deps.relay.flush();
    return result;
  });

  bus.serve(jobWorkSubjects.templateHealth, async (request) => {
    return runTickOnce(deps.pool, 'template_health', request.tick_at, async (tx) => ({
      templates_updated: await aggregateTemplateHealth(tx, request.tick_at),
    }));
  });

  bus.serve(jobWorkSubjects.logCleanup, async (request) => {
    return runTickOnce(deps.pool, 'log_cleanup', request.tick_at, async (tx) => {
      const removed = await deleteOldLogLines(tx, request.keep_per_installation);
      // The same tick bounds the client activity table (7 days of sessions) and the tick ledger.
      await deleteOldClientSessions(tx, clientSessionRetentionDays);
      await forgetOldTicks(tx);
      return { removed };
    });
  });
}
