import { z } from 'zod';
import { teamAccess } from '../access/subjectAccess.ts';
import { teamIdField, uuidField } from '../ids.ts';
import { isoTimestamp } from '../isoTimestamp.ts';
import { slug } from '../satellite/serverConfiguration.ts';
import { toolDefinitionHash, unconfirmedCallPolicy } from '../satellite/toolPolicy.ts';
import { defineSubject } from '../subject.ts';

export const toolName = z.string().min(1).max(200);
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
  tool_name: toolName,
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
  server_slug: slug,
  without_elicitation: unconfirmedCallPolicy,
  /** Whether tool definitions are pinned: a new tool or a changed definition waits for a team admin. */
  pin_definitions: z.boolean(),
  tools: z.array(toolPolicyEntry),
});
export type ToolPolicyView = z.infer<typeof toolPolicyView>;

export const toolPolicyUpdate = z
  .object({
    without_elicitation: unconfirmedCallPolicy.optional(),
    /** false opts the installation out of pinned definitions: satellites serve whatever the server lists. */
    pin_definitions: z.boolean().optional(),
    tools: z.array(toolRuleChange).max(1000).optional(),
  })
  .strict();
export type ToolPolicyUpdate = z.infer<typeof toolPolicyUpdate>;

/** A team-wide rule: for one tool of every installation of one server (template) in the team. */
export const teamToolRuleView = z.object({ server_slug: slug, tool_name: toolName, rule: toolRule });
export type TeamToolRuleView = z.infer<typeof teamToolRuleView>;

export const teamToolPolicyUpdate = z
  .object({ server_slug: slug, tools: z.array(toolRuleChange).min(1).max(1000) })
  .strict();
export type TeamToolPolicyUpdate = z.infer<typeof teamToolPolicyUpdate>;

/** A tool's definition as pinned: what tells a model what the tool does and takes. */
export const toolDefinitionView = z.object({
  name: z.string(),
  description: z.string(),
  input_schema: z.unknown(),
  output_schema: z.unknown(),
  annotations: z.unknown(),
});

/** A definition the server listed that differs from the approved one (or a new tool), held back until approved. */
export const pendingToolDefinition = z.object({
  tool_name: toolName,
  definition_hash: toolDefinitionHash,
  definition: toolDefinitionView,
  /** The approved definition it would replace; null for a new tool. */
  approved: toolDefinitionView.nullable(),
  first_seen_at: isoTimestamp,
});
export type PendingToolDefinition = z.infer<typeof pendingToolDefinition>;

export const toolDefinitionsView = z.object({
  installation_id: uuid,
  pin_definitions: z.boolean(),
  /** How many tools have an approved definition. */
  approved_count: z.number().int(),
  pending: z.array(pendingToolDefinition),
});
export type ToolDefinitionsView = z.infer<typeof toolDefinitionsView>;

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
  listDefinitions: defineSubject({
    subject: 'installations.tool_definitions.list',
    service: 'installations',
    access: teamAccess('installations.view'),
    description:
      "An installation's pinned tool definitions: how many are approved, and each new or changed one held back, beside the approved one it would replace (team members).",
    request: installationRef,
    reply: toolDefinitionsView,
  }),
  approveDefinition: defineSubject({
    subject: 'installations.tool_definitions.approve',
    service: 'installations',
    access: teamAccess('installations.manage'),
    description:
      'Approves a held-back tool definition (team admins): it becomes the pinned one and satellites serve the tool again; queues configure mcp_installation_updated.',
    request: installationRef.extend({ tool_name: toolName, definition_hash: toolDefinitionHash }).strict(),
    reply: toolDefinitionsView,
  }),
} as const;
