import { annotatedDestructive, type ServerToolPolicy, type ToolRule } from '@orbital/contracts';
import type { ToolRuleRow } from '../db/toolPolicyQueries.ts';

/** The rule that applies to a tool: the installation's own where it has one, else the team's. */
function applying(own: ToolRule | undefined, team: ToolRule | undefined): ToolRule | undefined {
  return own ?? team;
}

/** Splits the rules bearing on one installation into its own and the team's, by tool name. */
export function rulesByTool(rules: readonly ToolRuleRow[], installationId: string) {
  const own = new Map<string, ToolRule>();
  const team = new Map<string, ToolRule>();
  for (const row of rules) {
    const rule = { enabled: row.enabled, needs_confirmation: row.needs_confirmation };
    if (row.installation_id === installationId) own.set(row.tool_name, rule);
    else if (row.installation_id === null) team.set(row.tool_name, rule);
  }
  return { own, team };
}

/** What an installation's rules come to for one tool. */
export function effectiveTool(
  own: ToolRule | undefined,
  team: ToolRule | undefined,
  annotations: Record<string, unknown> | null | undefined,
): { enabled: boolean; needs_confirmation: boolean } {
  const rule = applying(own, team);
  return {
    enabled: rule?.enabled ?? true,
    needs_confirmation: rule?.needs_confirmation ?? annotatedDestructive(annotations),
  };
}

/**
 * The policy a satellite applies, from the rules bearing on one installation. Tools are named in it
 * whether or not the server lists them now, so a tool that appears later is covered from its first listing.
 */
export function serverToolPolicyOf(
  rules: readonly ToolRuleRow[],
  installationId: string,
  withoutElicitation: 'refuse' | 'run',
): ServerToolPolicy {
  const { own, team } = rulesByTool(rules, installationId);
  const policy: ServerToolPolicy = {
    disabled: [],
    confirm: [],
    no_confirm: [],
    without_elicitation: withoutElicitation,
  };
  for (const name of new Set([...own.keys(), ...team.keys()])) {
    const rule = applying(own.get(name), team.get(name));
    if (!rule) continue;
    if (!rule.enabled) policy.disabled.push(name);
    if (rule.needs_confirmation === true) policy.confirm.push(name);
    if (rule.needs_confirmation === false) policy.no_confirm.push(name);
  }
  policy.disabled.sort();
  policy.confirm.sort();
  policy.no_confirm.sort();
  return policy;
}
