import { z } from 'zod';

const toolNames = z.array(z.string().min(1).max(200)).max(5000).default([]);

/**
 * What a satellite does when a tool needs confirmation and the calling client cannot be asked (it did
 * not declare the elicitation capability): `refuse` answers a tool error saying so, `run` runs it
 * unconfirmed. Chosen per installation by a team admin; `refuse` unless they say otherwise.
 */
export const unconfirmedCallPolicy = z.enum(['refuse', 'run']);
export type UnconfirmedCallPolicy = z.infer<typeof unconfirmedCallPolicy>;

/**
 * The tool policy of one installation as a satellite applies it: the team's rules and the
 * installation's, already combined by the installations service (the installation's rule for a tool
 * wins over the team's). Tools are named as their server lists them.
 *
 * - `disabled`: absent from discovery, refused by execution.
 * - `confirm`: an admin said these need the caller's confirmation before each run.
 * - `no_confirm`: an admin said these run without confirmation even if their annotations say destructive.
 *
 * Every other tool whose annotations say `destructiveHint: true` needs confirmation too.
 */
export const serverToolPolicy = z.object({
  disabled: toolNames,
  confirm: toolNames,
  no_confirm: toolNames,
  without_elicitation: unconfirmedCallPolicy.default('refuse'),
});
export type ServerToolPolicy = z.infer<typeof serverToolPolicy>;

/**
 * Whether a tool's own annotations ask for confirmation. Only an explicit `destructiveHint: true`
 * counts: the MCP default (destructive unless said otherwise) would make nearly every tool of servers
 * that declare no annotations ask before each run.
 */
export function annotatedDestructive(annotations: Record<string, unknown> | undefined | null): boolean {
  return annotations?.destructiveHint === true;
}

/** Whether the policy asks for confirmation before `toolName` runs. */
export function needsConfirmation(
  policy: ServerToolPolicy | undefined,
  toolName: string,
  annotations: Record<string, unknown> | undefined | null,
): boolean {
  if (policy?.confirm.includes(toolName)) return true;
  if (policy?.no_confirm.includes(toolName)) return false;
  return annotatedDestructive(annotations);
}

/** A tool definition's hash: SHA-256 (hex) over the canonical JSON of what `toolDefinitionOf` keeps. */
export const toolDefinitionHash = z.string().regex(/^[0-9a-f]{64}$/, 'a SHA-256 hash in hex');

/**
 * The tool definitions of one installation a team admin approved (by the server's first listing, or
 * one by one since): tool name to definition hash. A satellite holds back from discovery and execution
 * every listed tool whose definition hash is not the one here, whether the tool changed or is new.
 * Left out of the configuration while nothing is recorded yet, or when the installation opted out.
 */
export const toolPins = z.record(z.string().min(1).max(200), toolDefinitionHash);
export type ToolPins = z.infer<typeof toolPins>;

/** What of a tool's definition is pinned: what tells a model what the tool does and takes. */
export function toolDefinitionOf(tool: {
  name: string;
  description?: string | undefined;
  inputSchema?: unknown;
  outputSchema?: unknown;
  annotations?: unknown;
}) {
  return {
    name: tool.name,
    description: tool.description ?? '',
    input_schema: tool.inputSchema ?? null,
    output_schema: tool.outputSchema ?? null,
    annotations: tool.annotations ?? null,
  };
}
export type ToolDefinition = ReturnType<typeof toolDefinitionOf>;
