import type { SearchableTool } from './searchableTool.ts';

/**
 * The texts of a tool that plain-word discovery reads, one per field: its name, its description, its
 * server (slug and name), and its input schema (each property's name and description, nested objects
 * and array items included, a few levels deep).
 */
export type ToolSearchFields = { name: string; description: string; server: string; schema: string };

export const toolSearchFieldNames = ['name', 'description', 'server', 'schema'] as const;

export function toolSearchFields(tool: SearchableTool): ToolSearchFields {
  const schemaTexts: string[] = [];
  collectSchemaTexts(tool.input_schema, schemaTexts, 0);
  return {
    name: tool.name,
    description: tool.description,
    server: `${tool.server_slug} ${tool.server_name}`,
    schema: schemaTexts.join(' '),
  };
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
