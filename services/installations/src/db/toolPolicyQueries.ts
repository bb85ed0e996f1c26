import type { ToolRule } from '@orbital/contracts';
import { type CommonQueryMethods, sql } from '@orbital/db';
import { z } from 'zod';

const ruleRow = z.object({
  installation_id: z.string().nullable(),
  server_slug: z.string(),
  tool_name: z.string(),
  enabled: z.boolean(),
  needs_confirmation: z.boolean().nullable(),
});
export type ToolRuleRow = z.infer<typeof ruleRow>;

const listedTool = z.object({
  tool_name: z.string(),
  description: z.string(),
  annotations: z.record(z.string(), z.unknown()).nullable(),
});
export type ListedTool = z.infer<typeof listedTool>;

/** The rules bearing on one installation: its own and the team's for its server. */
export async function rulesForInstallation(
  db: CommonQueryMethods,
  teamId: string,
  installationId: string,
  serverSlug: string,
): Promise<readonly ToolRuleRow[]> {
  return db.any(sql.type(ruleRow)`
    SELECT installation_id, server_slug, tool_name, enabled, needs_confirmation FROM tool_policies
    WHERE team_id = ${teamId} AND server_slug = ${serverSlug}
      AND (installation_id = ${installationId} OR installation_id IS NULL)
    ORDER BY tool_name`);
}

/** Every rule of the given teams (every team when null), for configuration distribution. */
export async function rulesOfTeams(
  db: CommonQueryMethods,
  teamIds: readonly string[] | null,
): Promise<readonly (ToolRuleRow & { team_id: string })[]> {
  return db.any(sql.type(ruleRow.extend({ team_id: z.string() }))`
    SELECT team_id, installation_id, server_slug, tool_name, enabled, needs_confirmation FROM tool_policies
    ${teamIds === null ? sql.fragment`` : sql.fragment`WHERE team_id = ANY(${sql.array([...teamIds], 'text')})`}`);
}

export async function teamRules(db: CommonQueryMethods, teamId: string): Promise<readonly ToolRuleRow[]> {
  return db.any(sql.type(ruleRow)`
    SELECT installation_id, server_slug, tool_name, enabled, needs_confirmation FROM tool_policies
    WHERE team_id = ${teamId} AND installation_id IS NULL ORDER BY server_slug, tool_name`);
}

/** Sets (or with null removes) one rule; `installationId` null for the team's rule. */
export async function putRule(
  db: CommonQueryMethods,
  key: { teamId: string; installationId: string | null; serverSlug: string; toolName: string },
  rule: ToolRule | null,
  updatedBy: string | null,
): Promise<void> {
  if (rule === null) {
    await db.query(sql.unsafe`
      DELETE FROM tool_policies WHERE team_id = ${key.teamId} AND server_slug = ${key.serverSlug}
        AND tool_name = ${key.toolName} AND installation_id IS NOT DISTINCT FROM ${key.installationId}`);
    return;
  }
  await db.query(sql.unsafe`
    INSERT INTO tool_policies (team_id, installation_id, server_slug, tool_name, enabled, needs_confirmation, updated_by)
    VALUES (${key.teamId}, ${key.installationId}, ${key.serverSlug}, ${key.toolName}, ${rule.enabled},
      ${rule.needs_confirmation}, ${updatedBy})
    ON CONFLICT (team_id, installation_id, server_slug, tool_name) DO UPDATE SET enabled = EXCLUDED.enabled,
      needs_confirmation = EXCLUDED.needs_confirmation, updated_by = EXCLUDED.updated_by, updated_at = now()`);
}

/** The tools the installation's last discovery found. */
export async function listedTools(db: CommonQueryMethods, installationId: string): Promise<readonly ListedTool[]> {
  return db.any(sql.type(listedTool)`
    SELECT tool_name, description, annotations FROM tool_metadata
    WHERE installation_id = ${installationId} ORDER BY tool_name`);
}

export async function unconfirmedCallsOf(db: CommonQueryMethods, installationId: string): Promise<'refuse' | 'run'> {
  const value = await db.oneFirst(sql.type(z.object({ unconfirmed_calls: z.enum(['refuse', 'run']) }))`
    SELECT unconfirmed_calls FROM mcp_installations WHERE id = ${installationId}`);
  return value;
}

export async function setUnconfirmedCalls(
  db: CommonQueryMethods,
  installationId: string,
  value: 'refuse' | 'run',
): Promise<void> {
  await db.query(sql.unsafe`UPDATE mcp_installations SET unconfirmed_calls = ${value} WHERE id = ${installationId}`);
}
