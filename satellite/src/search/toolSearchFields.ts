import type { SearchableTool } from './searchableTool.ts';

/**
 * The texts of a tool that plain-word discovery reads, one per field, so each can weigh what it says:
 * its name; the first sentence of its description (what the tool does) and the rest (how, caveats,
 * examples); its input schema (each property's name and description, nested objects and array items
 * included, a few levels deep); its server's names (slug, name and the catalogue's title); and what the
 * catalogue says the server is for (its description), shared by every tool of the server.
 */
export type ToolSearchFields = {
  name: string;
  summary: string;
  details: string;
  schema: string;
  server: string;
  serverAbout: string;
};

export const toolSearchFieldNames = ['name', 'summary', 'details', 'schema', 'server', 'serverAbout'] as const;

export function toolSearchFields(tool: SearchableTool): ToolSearchFields {
  const schemaTexts: string[] = [];
  collectSchemaTexts(tool.input_schema, schemaTexts, 0);
  const [summary, details] = splitFirstSentence(tool.description);
  return {
    name: tool.name,
    summary,
    details,
    schema: schemaTexts.join(' '),
    server: serverNamesOf(tool),
    serverAbout: tool.server_description ?? '',
  };
}

/** The names a server goes by: its slug, its name in tool paths and its catalogue title. */
export function serverNamesOf(tool: SearchableTool): string {
  return `${tool.server_slug} ${tool.server_name}${tool.server_title ? ` ${tool.server_title}` : ''}`;
}

/**
 * A description's first sentence and the rest. A sentence ends at `.`, `!` or `?` followed by white
 * space, or at a blank line; a dot inside a word (`file.txt`, `e.g.`) or a number does not end it.
 */
export function splitFirstSentence(text: string): [string, string] {
  const end = /(?<![A-Za-z0-9]\.[A-Za-z])(?<!\b(?:e\.g|i\.e|etc|vs))[.!?](?=\s)|\n\s*\n/.exec(text);
  if (!end) return [text.trim(), ''];
  const at = end.index + end[0].length;
  return [text.slice(0, at).trim(), text.slice(at).trim()];
}

const maxSchemaDepth = 3;

function collectSchemaTexts(schema: unknown, into: string[], depth: number): void {
  if (!isObject(schema) || depth > maxSchemaDepth) return;
  const properties = schema.properties;
  if (isObject(properties)) {
    for (const [name, property] of Object.entries(properties)) {
      into.push(name);
      if (isObject(property)) {
        if (typeof property.description === 'string') into.push(property.description);
        else if (typeof property.title === 'string') into.push(property.title);
        collectSchemaTexts(property, into, depth + 1);
      }
    }
  }
  if (isObject(schema.items)) collectSchemaTexts(schema.items, into, depth + 1);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
