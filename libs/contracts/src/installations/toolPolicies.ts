import { z } from 'zod';
import { teamAccess } from '../access/subjectAccess.ts';
import { teamIdField, uuidField } from '../ids.ts';
import { slug } from '../satellite/serverConfiguration.ts';
import { unconfirmedCallPolicy } from '../satellite/toolPolicy.ts';
import { defineSubject } from '../subject.ts';

const toolName = z.string().min(1).max(200);
const uuid = uuidField();

/**
 * An admin's rule for one tool. `needs_confirmation`: true asks the caller before every run, false never
 * asks (even for a tool annotated destructive), null follows the tool's annotations.
 */
export const toolRule = z
  .object({
    enabled: z.boolean(),
    needs_confirmation: z.boolean().nullable(),
  })
  .strict();
export type ToolRule = z.infer<typeof toolRule>;

/** A change to one tool's rule; `rule: null` removes it (the tool falls back to the team's rule, or the defaults). */
export const toolRuleChange = z.object({ tool_name: toolName, rule: toolRule.nullable() }).strict();
export type ToolRuleChange = z.infer<typeof toolRuleChange>;

/** One tool of an installation with the rules that apply to it and what they come to. */
export const toolPolicyEntry = z.object({
  tool_name: z.string(),
  /** As the last discovery found it; empty for a tool only a rule names (not listed by the server now). */
  description: z.string(),
  /** Whether the server's annotations say destructiveHint: true. */
  destructive: z.boolean(),
  listed: z.boolean(),
  installation_rule: toolRule.nullable(),
  team_rule: toolRule.nullable(),
  /** What the satellites apply: the installation's rule where there is one, else the team's, else the defaults. */
  enabled: z.boolean(),
  needs_confirmation: z.boolean(),
});
export type ToolPolicyEntry = z.infer<typeof toolPolicyEntry>;

export const toolPolicyView = z.object({
  installation_id: uuid,
  server_slug: z.string(),
  without_elicitation: unconfirmedCallPolicy,
  tools: z.array(toolPolicyEntry),
});
export type ToolPolicyView = z.infer<typeof toolPolicyView>;

export const toolPolicyUpdate = z
  .object({
    without_elicitation: unconfirmedCallPolicy.optional(),
    tools: z.array(toolRuleChange).max(1000).optional(),
  })
  .strict();
export type ToolPolicyUpdate = z.infer<typeof toolPolicyUpdate>;

/** A team-wide rule: for one tool of every installation of one server (template) in the team. */
export const teamToolRuleView = z.object({ server_slug: z.string(), tool_name: z.string(), rule: toolRule });
export type TeamToolRuleView = z.infer<typeof teamToolRuleView>;

export const teamToolPolicyUpdate = z
  .object({ server_slug: slug, tools: z.array(toolRuleChange).min(1).max(1000) })
  .strict();
export type TeamToolPolicyUpdate = z.infer<typeof teamToolPolicyUpdate>;

const installationRef = z.object({ team_id: teamIdField, installation_id: uuid }).strict();
const byTeam = z.object({ team_id: teamIdField }).strict();

/**
 * Which tools of a team's installations run, and which ask the caller first. Rules are kept per
 * installation and per team (for every installation of a server); team members read them, team admins
 * change them, and each change reaches the satellites with the installation's configuration.
 */
export const toolPolicySubjects = {
  get: defineSubject({
    subject: 'installations.tool_policy.get',
    service: 'installations',
    access: teamAccess('installations.view'),
    description: "An installation's tools with the rules that apply to each and what they come to (team members).",
    request: installationRef,
    reply: toolPolicyView,
  }),
  update: defineSubject({
    subject: 'installations.tool_policy.update',
    service: 'installations',
    access: teamAccess('installations.manage'),
    description:
      "Changes an installation's tool rules and what happens when a client cannot confirm (team admins); queues configure mcp_installation_updated.",
    request: installationRef.extend({ changes: toolPolicyUpdate }).strict(),
    reply: toolPolicyView,
  }),
  listTeam: defineSubject({
    subject: 'installations.team_tool_policy.list',
    service: 'installations',
    access: teamAccess('installations.view'),
    description: "The team's rules for tools of every installation of a server (team members).",
    request: byTeam,
    reply: z.array(teamToolRuleView),
  }),
  updateTeam: defineSubject({
    subject: 'installations.team_tool_policy.update',
    service: 'installations',
    access: teamAccess('installations.manage'),
    description:
      "Changes the team's rules for tools of one server (team admins); queues configure mcp_installation_updated for each installation of it.",
    request: byTeam.extend({ changes: teamToolPolicyUpdate }).strict(),
    reply: z.array(teamToolRuleView),
  }),
} as const;
