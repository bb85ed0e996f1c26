import { type AuditContext, recordAudit } from '@orbital/audit';
import type { TeamToolPolicyUpdate, ToolPolicyUpdate, ToolPolicyView } from '@orbital/contracts';
import type { CommonQueryMethods, LivePool } from '@orbital/db';
import * as q from '../db/installationQueries.ts';
import type { InstallationRow } from '../db/rows.ts';
import { pinsDefinitions, setPinsDefinitions } from '../db/toolDefinitionQueries.ts';
import * as p from '../db/toolPolicyQueries.ts';
import { effectiveTool, rulesByTool } from './combineToolRules.ts';
import { mustFindInstallation, reconfigureAudited, reconfigureEach } from './installationChanges.ts';
import { inRelayedTransaction, type OutboxRelay } from './outboxRelay.ts';

/**
 * Tool rules of installations and teams: read with what they come to, changed by team admins (audited),
 * and sent to the satellites with the configuration of every installation they bear on.
 */
export function createToolPolicies(deps: { pool: LivePool; relay: OutboxRelay }) {
  const { pool, relay } = deps;

  async function view(db: CommonQueryMethods, installation: InstallationRow): Promise<ToolPolicyView> {
    const [rules, listed, withoutElicitation, pinning] = await Promise.all([
      p.rulesForInstallation(db, installation.team_id, installation.id, installation.server_slug),
      p.listedTools(db, installation.id),
      p.unconfirmedCallsOf(db, installation.id),
      pinsDefinitions(db, installation.id),
    ]);
    const { own, team } = rulesByTool(rules, installation.id);
    const byName = new Map(listed.map((tool) => [tool.tool_name, tool]));
    const names = [...new Set([...byName.keys(), ...own.keys(), ...team.keys()])].sort();
    return {
      installation_id: installation.id,
      server_slug: installation.server_slug,
      without_elicitation: withoutElicitation,
      pin_definitions: pinning,
      tools: names.map((name) => {
        const tool = byName.get(name);
        const effective = effectiveTool(own.get(name), team.get(name), tool?.annotations);
        return {
          tool_name: name,
          description: tool?.description ?? '',
          destructive: tool?.annotations?.destructiveHint === true,
          listed: tool !== undefined,
          installation_rule: own.get(name) ?? null,
          team_rule: team.get(name) ?? null,
          ...effective,
        };
      }),
    };
  }

  async function teamView(db: CommonQueryMethods, teamId: string) {
    return (await p.teamRules(db, teamId)).map((row) => ({
      server_slug: row.server_slug,
      tool_name: row.tool_name,
      rule: { enabled: row.enabled, needs_confirmation: row.needs_confirmation },
    }));
  }

  return {
    async get(teamId: string, installationId: string) {
      const db = pool.get();
      return view(db, await mustFindInstallation(db, teamId, installationId));
    },
    async update(
      teamId: string,
      installationId: string,
      changes: ToolPolicyUpdate,
      userId: string | null,
      who: AuditContext,
    ) {
      return inRelayedTransaction(pool, relay, async (tx) => {
        const installation = await mustFindInstallation(tx, teamId, installationId, true);
        const before = await p.unconfirmedCallsOf(tx, installationId);
        const pinnedBefore = await pinsDefinitions(tx, installationId);
        if (changes.without_elicitation) await p.setUnconfirmedCalls(tx, installationId, changes.without_elicitation);
        if (changes.pin_definitions !== undefined)
          await setPinsDefinitions(tx, installationId, changes.pin_definitions);
        for (const change of changes.tools ?? []) {
          await p.putRule(
            tx,
            { teamId, installationId, serverSlug: installation.server_slug, toolName: change.tool_name },
            change.rule,
            userId,
          );
        }
        await reconfigureAudited(tx, installation, {
          who,
          action: 'installation.tool_policy_updated',
          details: {
            name: installation.name,
            tools: changes.tools ?? [],
            ...(changes.without_elicitation
              ? { without_elicitation: changes.without_elicitation, previous_without_elicitation: before }
              : {}),
            ...(changes.pin_definitions !== undefined
              ? { pin_definitions: changes.pin_definitions, previous_pin_definitions: pinnedBefore }
              : {}),
          },
        });
        return view(tx, installation);
      });
    },
    async listTeam(teamId: string) {
      return teamView(pool.get(), teamId);
    },
    async updateTeam(teamId: string, changes: TeamToolPolicyUpdate, userId: string | null, who: AuditContext) {
      return inRelayedTransaction(pool, relay, async (tx) => {
        for (const change of changes.tools) {
          await p.putRule(
            tx,
            { teamId, installationId: null, serverSlug: changes.server_slug, toolName: change.tool_name },
            change.rule,
            userId,
          );
        }
        // Every installation of that server in the team gets its combined policy again.
        const installations = (await q.listTeamInstallations(tx, teamId)).filter(
          (row) => row.server_slug === changes.server_slug,
        );
        await reconfigureEach(tx, installations);
        await recordAudit(tx, {
          ...who,
          action: 'team.tool_policy_updated',
          target: { kind: 'team', id: teamId },
          team_id: teamId,
          details: { server_slug: changes.server_slug, tools: changes.tools, installations: installations.length },
        });
        return teamView(tx, teamId);
      });
    },
  };
}

export type ToolPolicies = ReturnType<typeof createToolPolicies>;
