import type { SatelliteEvent } from '@orbital/contracts';
import type { CommonQueryMethods } from '@orbital/db';
import { stampCheck } from '../db/installationQueries.ts';
import { replaceToolMetadata } from '../db/monitoringQueries.ts';
import type { InstallationRow } from '../db/rows.ts';
import { applyStatusTrigger } from '../domain/applyStatusTrigger.ts';
import type { StatusTrigger } from '../domain/nextStatus.ts';
import { inRelayedTransaction } from '../domain/outboxRelay.ts';
import { recordListedDefinitions } from '../domain/pinToolDefinitions.ts';
import { type InstallationRef, knownInstallations } from './knownInstallations.ts';
import type { EventSource, SatelliteEventDeps } from './satelliteEventDeps.ts';
import { storeClientSession } from './storeClientSession.ts';

/** The events stored one at a time; tool executions and log lines are stored as runs (storeEventRuns). */
export type StoredAlone = Exclude<SatelliteEvent, { type: 'mcp.tool.executed' | 'mcp.server.logs' }>;

/**
 * One satellite event from JetStream, checked against its type's contract by the consumer, its ids
 * in canonical form (storeSatelliteEventBatch, where events enter). Resolves
 * once its writes committed and the resulting domain events were published, so the message is
 * acknowledged only then; a redelivery stores nothing twice and republishes under the same message
 * ids, which JetStream drops as duplicates.
 */
export async function handleSatelliteEvent(
  deps: SatelliteEventDeps,
  event: StoredAlone,
  source: EventSource,
): Promise<void> {
  switch (event.type) {
    case 'mcp.tools.discovered':
      return storeTools(deps, event);
    case 'mcp.client.connected':
    case 'mcp.client.activity':
    case 'mcp.client.disconnected':
      return storeClientSession(deps, event, source);
    default: {
      const trigger = processTrigger(event);
      if (trigger) await applyToInstallation(deps, event, trigger.ref, trigger.trigger);
    }
  }
}

/** The installation an event names, locked for the writes it causes, when it is known (knownInstallations). */
async function installationFor(
  deps: SatelliteEventDeps,
  db: CommonQueryMethods,
  ref: InstallationRef,
): Promise<InstallationRow | null> {
  const { rows } = await knownInstallations(deps, db, [ref], (r) => r, { lock: true });
  return rows.get(ref.installationId) ?? null;
}

async function storeTools(deps: SatelliteEventDeps, event: Extract<SatelliteEvent, { type: 'mcp.tools.discovered' }>) {
  const d = event.data;
  await inRelayedTransaction(deps.pool, deps.relay, async (tx) => {
    const row = await installationFor(deps, tx, { installationId: d.installation_id, teamId: d.team_id });
    if (!row) return;
    await replaceToolMetadata(tx, {
      installationId: d.installation_id,
      serverSlug: d.server_slug,
      discoveredAt: d.discovered_at,
      tools: d.tools,
    });
    await recordListedDefinitions(tx, row, d.tools);
    await applyStatusTrigger(tx, row, { kind: 'tools_discovered', toolCount: d.tool_count }, event.timestamp);
  });
}

async function applyToInstallation(
  deps: SatelliteEventDeps,
  event: StoredAlone,
  ref: InstallationRef,
  trigger: StatusTrigger,
) {
  await inRelayedTransaction(deps.pool, deps.relay, async (tx) => {
    const row = await installationFor(deps, tx, ref);
    if (!row) return;
    if (event.type === 'mcp.server.status_changed') {
      // A credential check or a health report completed, whether or not the status moves.
      const check = event.data.reason === 'credential_validation' ? 'credential' : 'health';
      await stampCheck(tx, row.id, check, event.data.changed_at);
    }
    await applyStatusTrigger(tx, row, trigger, event.timestamp);
  });
}

function processTrigger(event: StoredAlone): { ref: InstallationRef; trigger: StatusTrigger } | null {
  const ref = (data: { server_id: string; team_id: string }, trigger: StatusTrigger) => ({
    ref: { installationId: data.server_id, teamId: data.team_id },
    trigger,
  });
  switch (event.type) {
    case 'mcp.server.started':
      return ref(event.data, { kind: 'process_started' });
    case 'mcp.server.crashed':
      return ref(event.data, {
        kind: 'process_crashed',
        willRestart: event.data.will_restart,
        exitCode: event.data.exit_code,
        signal: event.data.signal,
      });
    case 'mcp.server.restarted':
      return ref(event.data, { kind: 'process_restarted', attempt: event.data.attempt_number });
    case 'mcp.server.permanently_failed':
      return ref(event.data, { kind: 'process_permanently_failed', lastError: event.data.last_error });
    case 'mcp.server.dormant':
      return ref(event.data, { kind: 'process_dormant' });
    case 'mcp.server.respawned':
      return ref(event.data, { kind: 'process_respawned' });
    case 'mcp.server.status_changed':
      return ref(event.data, {
        kind: 'status_reported',
        status: event.data.status,
        reason: event.data.reason,
        message: event.data.status_message,
      });
    default:
      // Client, configuration and tool-list events are not about an installation's status.
      return null;
  }
}
