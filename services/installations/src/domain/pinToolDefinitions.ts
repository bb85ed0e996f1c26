import type { AuditContext } from '@orbital/audit';
import { type ToolDefinitionsView, toolDefinitionOf } from '@orbital/contracts';
import type { CommonQueryMethods, LivePool } from '@orbital/db';
import { AppError } from '@orbital/errors';
import type { DiscoveredTool } from '../db/monitoringQueries.ts';
import type { InstallationRow } from '../db/rows.ts';
import * as d from '../db/toolDefinitionQueries.ts';
import { mustFindInstallation, reconfigure, reconfigureAudited } from './installationChanges.ts';
import { inRelayedTransaction, type OutboxRelay } from './outboxRelay.ts';

type ListedTool = DiscoveredTool & { output_schema?: Record<string, unknown>; definition_hash?: string };

/**
 * Records the tool definitions a satellite listed for an installation that pins them. The first listing
 * is approved as it is and the satellites told (they serve every tool until they hold pins); after it, a
 * new tool or a changed definition is recorded as pending, which the satellites already hold back (its
 * hash is not among the pins). Tools listed without a hash (a satellite from before pinning) are skipped.
 */
export async function recordListedDefinitions(
  tx: CommonQueryMethods,
  installation: Pick<InstallationRow, 'id' | 'team_id'>,
  tools: readonly ListedTool[],
): Promise<void> {
  if (!(await d.pinsDefinitions(tx, installation.id))) return;
  const hashed = tools.filter((tool) => tool.definition_hash);
  if (hashed.length === 0) return;
  const first = !(await d.hasDefinitions(tx, installation.id));
  for (const tool of hashed) {
    await d.recordDefinition(tx, {
      installationId: installation.id,
      toolName: tool.tool_name,
      hash: tool.definition_hash as string,
      definition: toolDefinitionOf({
        name: tool.tool_name,
        description: tool.description,
        inputSchema: tool.input_schema,
        outputSchema: tool.output_schema,
        annotations: tool.annotations,
      }),
      approved: first,
    });
  }
  if (first) await reconfigure(tx, installation);
}

/** Held-back definitions and their approval by team admins (audited). */
export function createPinnedDefinitions(deps: { pool: LivePool; relay: OutboxRelay }) {
  const { pool, relay } = deps;

  async function view(db: CommonQueryMethods, installationId: string): Promise<ToolDefinitionsView> {
    const [pinning, rows] = await Promise.all([
      d.pinsDefinitions(db, installationId),
      d.listDefinitions(db, installationId),
    ]);
    const approved = new Map(rows.filter((r) => r.state === 'approved').map((r) => [r.tool_name, r]));
    return {
      installation_id: installationId,
      pin_definitions: pinning,
      approved_count: approved.size,
      pending: rows
        .filter((r) => r.state === 'pending')
        .map((r) => ({
          tool_name: r.tool_name,
          definition_hash: r.definition_hash,
          definition: r.definition as ToolDefinitionsView['pending'][number]['definition'],
          approved: (approved.get(r.tool_name)?.definition ??
            null) as ToolDefinitionsView['pending'][number]['approved'],
          first_seen_at: r.first_seen_at,
        })),
    };
  }

  return {
    async list(teamId: string, installationId: string) {
      const db = pool.get();
      await mustFindInstallation(db, teamId, installationId);
      return view(db, installationId);
    },
    async approve(
      teamId: string,
      installationId: string,
      toolName: string,
      hash: string,
      userId: string | null,
      who: AuditContext,
    ) {
      return inRelayedTransaction(pool, relay, async (tx) => {
        const installation = await mustFindInstallation(tx, teamId, installationId);
        if (!(await d.approveDefinition(tx, installationId, toolName, hash, userId))) {
          throw new AppError('not_found', 'No such held-back definition of this tool', {
            details: { tool_name: toolName, definition_hash: hash },
          });
        }
        await reconfigureAudited(tx, installation, {
          who,
          action: 'installation.tool_definition_approved',
          details: { name: installation.name, tool_name: toolName, definition_hash: hash },
        });
        return view(tx, installationId);
      });
    },
  };
}

export type PinnedDefinitions = ReturnType<typeof createPinnedDefinitions>;
