import type { ToolDefinition } from '@orbital/contracts';
import { type CommonQueryMethods, sql } from '@orbital/db';
import { z } from 'zod';

const definitionRow = z.object({
  tool_name: z.string(),
  definition_hash: z.string(),
  definition: z.record(z.string(), z.unknown()),
  state: z.enum(['approved', 'pending']),
  first_seen_at: z.string(),
});
export type DefinitionRow = z.infer<typeof definitionRow>;

export async function pinsDefinitions(db: CommonQueryMethods, installationId: string): Promise<boolean> {
  return db.oneFirst(sql.type(z.object({ pin_tool_definitions: z.boolean() }))`
    SELECT pin_tool_definitions FROM mcp_installations WHERE id = ${installationId}`);
}

export async function setPinsDefinitions(db: CommonQueryMethods, installationId: string, on: boolean): Promise<void> {
  await db.query(sql.unsafe`UPDATE mcp_installations SET pin_tool_definitions = ${on} WHERE id = ${installationId}`);
}

export async function hasDefinitions(db: CommonQueryMethods, installationId: string): Promise<boolean> {
  return db.exists(sql.unsafe`SELECT 1 FROM tool_definitions WHERE installation_id = ${installationId}`);
}

/** Records one definition; a definition already recorded (approved or pending) is left as it is. */
export async function recordDefinition(
  db: CommonQueryMethods,
  row: { installationId: string; toolName: string; hash: string; definition: ToolDefinition; approved: boolean },
): Promise<boolean> {
  const result = await db.query(sql.unsafe`
    INSERT INTO tool_definitions (installation_id, tool_name, definition_hash, definition, state, approved_at)
    VALUES (${row.installationId}, ${row.toolName}, ${row.hash}, ${sql.jsonb(row.definition as never)},
      ${row.approved ? 'approved' : 'pending'}, ${row.approved ? sql.fragment`now()` : null})
    ON CONFLICT DO NOTHING`);
  return result.rowCount > 0;
}

export async function listDefinitions(
  db: CommonQueryMethods,
  installationId: string,
): Promise<readonly DefinitionRow[]> {
  return db.any(sql.type(definitionRow)`
    SELECT tool_name, definition_hash, definition, state,
      to_char(first_seen_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS first_seen_at
    FROM tool_definitions WHERE installation_id = ${installationId} ORDER BY tool_name, first_seen_at`);
}

/**
 * Makes one pending definition the tool's approved one; the tool's other definitions (the one approved
 * before, versions the server listed in between) go.
 */
export async function approveDefinition(
  db: CommonQueryMethods,
  installationId: string,
  toolName: string,
  hash: string,
  approvedBy: string | null,
): Promise<boolean> {
  const pending = await db.exists(sql.unsafe`
    SELECT 1 FROM tool_definitions WHERE installation_id = ${installationId} AND tool_name = ${toolName}
      AND definition_hash = ${hash} AND state = 'pending' FOR UPDATE`);
  if (!pending) return false;
  await db.query(sql.unsafe`
    DELETE FROM tool_definitions WHERE installation_id = ${installationId} AND tool_name = ${toolName}
      AND definition_hash <> ${hash}`);
  await db.query(sql.unsafe`
    UPDATE tool_definitions SET state = 'approved', approved_by = ${approvedBy}, approved_at = now()
    WHERE installation_id = ${installationId} AND tool_name = ${toolName} AND definition_hash = ${hash}`);
  return true;
}

/** The approved definitions of the given installations that pin them: installation id to tool name to hash. */
export async function approvedPins(
  db: CommonQueryMethods,
  installationIds: readonly string[],
): Promise<Map<string, Record<string, string>>> {
  const rows = await db.any(sql.type(
    z.object({ installation_id: z.string(), tool_name: z.string(), definition_hash: z.string() }),
  )`
    SELECT d.installation_id, d.tool_name, d.definition_hash FROM tool_definitions d
    JOIN mcp_installations i ON i.id = d.installation_id
    WHERE d.state = 'approved' AND i.pin_tool_definitions
      AND d.installation_id = ANY(${sql.array([...installationIds], 'uuid')})`);
  const pins = new Map<string, Record<string, string>>();
  for (const row of rows) {
    const of = pins.get(row.installation_id) ?? {};
    of[row.tool_name] = row.definition_hash;
    pins.set(row.installation_id, of);
  }
  return pins;
}
