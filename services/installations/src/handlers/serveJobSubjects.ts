import type { Bus } from '@orbital/bus';
import { jobWorkSubjects } from '@orbital/contracts';
import type { LivePool } from '@orbital/db';
import { deleteOldClientSessions } from '../db/clientSessionQueries.ts';
import { dueForCredentialValidation } from '../db/installationQueries.ts';
import { deleteOldLogLines } from '../db/monitoringQueries.ts';
import { aggregateTemplateHealth } from '../db/templateQueries.ts';
import { requireService } from '../domain/access.ts';
import { type OutboxRelay, queueCommand } from '../domain/outboxRelay.ts';

/** How long a client session stays listed after its last event. */
const clientSessionRetentionDays = 7;

/** The work the jobs service schedules; each is idempotent, so a retried or doubled tick is harmless. */
export function serveJobSubjects(bus: Bus, deps: { pool: LivePool; relay: OutboxRelay }): void {
  bus.serve(jobWorkSubjects.credentialValidation, async (request, context) => {
    requireService(context.identity);
    const result = await deps.pool.get().transaction(async (tx) => {
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
          // One command per installation and tick: a retried tick queues nothing twice.
          correlation_id: `credential_validation:${installation.id}:${request.tick_at}`,
        });
        if (fresh) queued++;
      }
      return { due: due.length, queued, installation_ids: due.map((i) => i.id) };
    });
    await deps.relay.flush();
    return result;
  });

  bus.serve(jobWorkSubjects.templateHealth, async (request, context) => {
    requireService(context.identity);
    return { templates_updated: await aggregateTemplateHealth(deps.pool.get(), request.tick_at) };
  });

  bus.serve(jobWorkSubjects.logCleanup, async (request, context) => {
    requireService(context.identity);
    const removed = await deleteOldLogLines(deps.pool.get(), request.keep_per_installation);
    // The same tick bounds the client activity table (7 days of sessions; see migration 0003).
    await deleteOldClientSessions(deps.pool.get(), clientSessionRetentionDays);
    return { removed };
  });
}
