import { randomUUID } from 'node:crypto';
import { startMigrationTest } from '@orbital/testing';
import { stackForFile } from '@orbital/testing/stackForFile';
import { describe, expect, it } from 'vitest';
import { migrationsDir } from '../src/app.ts';

/**
 * Rows written before ids took one form keep their team: a team's UUID in capitals becomes the lower
 * case gateway-api now hands on, so the team finds them again. A real PostgreSQL, the real migrations.
 */
const schema = stackForFile(() =>
  startMigrationTest({ schema: 'installations', migrationsDir, migration: '0006_canonical_team_ids.sql' }),
);

describe('the migration to canonical team ids', () => {
  it("gives every row its team's id in lower case, and leaves other ids as they are", async () => {
    const { db } = schema;
    const team = randomUUID();
    const template = randomUUID();
    await db.query(
      `INSERT INTO mcp_server_templates (id, slug, name, transport, command) VALUES ($1, 'fs', 'FS', 'stdio', 'npx')`,
      [template],
    );
    const insert = async (teamId: string, name: string) => {
      const id = randomUUID();
      await db.query(
        `INSERT INTO mcp_installations (id, team_id, team_slug, template_id, name, secret_config)
         VALUES ($1, $2, 'team', $3, $4, 'x')`,
        [id, teamId, template, name],
      );
      return id;
    };
    const capitals = await insert(team.toUpperCase(), 'only-in-capitals');
    const twinLower = await insert(team, 'twin');
    const twinUpper = await insert(team.toUpperCase(), 'twin');
    const named = await insert('Team-One', 'not-a-uuid');
    await db.query(
      `INSERT INTO request_logs (id, installation_id, team_id, tool_name, request_params, duration_ms, success, "timestamp")
       VALUES ($1, $2, $3, 'read', '{}', 1, true, now())`,
      [randomUUID(), capitals, team.toUpperCase()],
    );
    await db.query(
      `INSERT INTO server_logs (installation_id, team_id, log_level, message, "timestamp", event_id, line_no)
       VALUES ($1, $2, 'info', 'line', now(), $3, 0)`,
      [capitals, team.toUpperCase(), randomUUID()],
    );
    await db.query(
      `INSERT INTO mcp_client_sessions (satellite_id, session_id, team_id, updated_at) VALUES ('s', 'one', $1, now())`,
      [team.toUpperCase()],
    );

    await schema.migrateRest();

    const rows = await db.query<{ id: string; team_id: string; name: string }>(
      'SELECT id, team_id, name FROM mcp_installations ORDER BY name',
    );
    expect(rows.rows).toEqual(
      [
        { id: named, team_id: 'Team-One', name: 'not-a-uuid' },
        { id: capitals, team_id: team, name: 'only-in-capitals' },
        { id: twinLower, team_id: team, name: 'twin' },
        // Its team already had an installation of that name: it keeps both, apart.
        { id: twinUpper, team_id: team, name: `twin-${twinUpper.slice(0, 8)}` },
      ].sort((a, b) => a.name.localeCompare(b.name)),
    );
    for (const table of ['request_logs', 'server_logs', 'mcp_client_sessions']) {
      const teams = await db.query<{ team_id: string }>(`SELECT DISTINCT team_id FROM ${table}`);
      expect({ table, teams: teams.rows.map((r) => r.team_id) }).toEqual({ table, teams: [team] });
    }
  });
});
