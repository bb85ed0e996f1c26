import { z } from 'zod';

/** The longest discovery query accepted, in UTF-16 code units (a paragraph of about 150 words). */
export const maxQueryLength = 1000;

/** The most extra phrasings (`queries`) one discovery call may send; each is one more search. */
export const maxPhrasings = 10;

const argumentSchemas = {
  discover_mcp_tools: z.object({
    // A query is a request in a sentence or a few operator terms. Its cost grows with its length (every `|`
    // group is matched against every tool, as Fuse.js does), and one search holds the satellite's event
    // loop for every team: a 126 KB query of `|` groups took 31 s over 572 tools.
    query: z
      .string({ error: 'must be a string: what the tool should do, or words from its name or server' })
      .max(maxQueryLength, {
        error: `must be at most ${maxQueryLength} characters: describe the tool in a sentence, or use fewer operator terms`,
      }),
    // Other phrasings of the same need, each searched and the lists fused: each costs one search.
    queries: z
      .array(
        z
          .string({ error: 'must be a string: another phrasing of what the tool should do' })
          .refine((phrasing) => phrasing.trim().length > 0, { error: 'must not be blank' })
          .refine((phrasing) => phrasing.length <= maxQueryLength, {
            error: `must be at most ${maxQueryLength} characters`,
          }),
        { error: 'must be an array of strings: other phrasings of what the tool should do' },
      )
      .max(maxPhrasings, { error: `must hold at most ${maxPhrasings} phrasings` })
      .optional(),
    limit: z
      .number({ error: 'must be a number' })
      .int({ error: 'must be a whole number' })
      .min(1, { error: 'must be at least 1' })
      .max(1000, { error: 'must be at most 1000' })
      .optional(),
    include_schemas: z.boolean({ error: 'must be true or false' }).optional(),
  }),
  execute_mcp_tool: z.object({
    tool_path: z
      .string({ error: 'must be a string of the form serverName:toolName, as discover_mcp_tools returns it' })
      .min(1, { error: 'must not be empty: serverName:toolName, as discover_mcp_tools returns it' }),
    arguments: z.record(z.string(), z.unknown(), {
      error: "must be an object holding the tool's arguments ({} when the tool takes none)",
    }),
  }),
};

export type MetaToolName = keyof typeof argumentSchemas;

/**
 * What is wrong with a meta-tool's arguments, naming each field, or null when they are fine. The
 * gateway answers it as a tool error (not a protocol error), so the calling agent sees the field
 * and corrects its next call.
 */
export function metaToolArgumentProblem(tool: MetaToolName, raw: unknown): string | null {
  const parsed = argumentSchemas[tool].safeParse(raw ?? {});
  if (parsed.success) return null;
  const problems = parsed.error.issues.map((issue) => {
    const field = issue.path.join('.');
    if (!field) return 'the arguments must be an object';
    let given: unknown = raw;
    for (const key of issue.path)
      given =
        given !== null && typeof given === 'object'
          ? (given as Record<PropertyKey, unknown>)[key as PropertyKey]
          : undefined;
    const missing = issue.code === 'invalid_type' && given === undefined;
    return missing ? `"${field}" is required and ${issue.message}` : `"${field}" ${issue.message}`;
  });
  return `Invalid arguments for ${tool}: ${problems.join('; ')}.`;
}
