import { randomUUID } from 'node:crypto';
import { startMigrationTest } from '@orbital/testing';
import { stackForFile } from '@orbital/testing/stackForFile';
import { describe, expect, it } from 'vitest';
import { migrationsDir } from '../src/app.ts';

/**
 * Tokens, satellites, commands and processes recorded before ids took one form keep their team: a
 * team's (or an installation's) UUID in capitals becomes the lower case gateway-api now hands on. A
 * real PostgreSQL, the real migrations.
 */
const schema = stackForFile(() =>
  startMigrationTest({ schema: 'registry', migrationsDir, migration: '0003_canonical_team_ids.sql' }),
);

describe('the migration to canonical team ids', () => {
  it("gives every record its team's id in lower case, and leaves other ids as they are", async () => {
    const { db } = schema;
    const team = randomUUID();
    const installation = randomUUID();
    const satellite = randomUUID();
    await db.query(
      `INSERT INTO registration_tokens (id, scope, team_id, expires_at) VALUES ($1, 'team', $2, now()), ($3, 'team', 'Team-One', now())`,
      [randomUUID(), team.toUpperCase(), randomUUID()],
    );
    await db.query(
      `INSERT INTO satellites (id, name, satellite_type, team_id, api_key_id, api_key_hash)
       VALUES ($1, 'sat', 'team', $2, 'key', 'hash')`,
      [satellite, team.toUpperCase()],
    );
    await db.query(
      `INSERT INTO satellite_commands (id, satellite_id, team_id, command_type, priority, priority_rank, payload, created_at, updated_at)
       VALUES ($1, $2, $3, 'configure', 'normal', 2, '{}', now(), now())`,
      [randomUUID(), satellite, team.toUpperCase()],
    );
    await db.query(
      `INSERT INTO satellite_processes (satellite_id, process_id, installation_id, team_id, status, health, request_count, updated_at)
       VALUES ($1, 'p1', $2, $3, 'running', 'healthy', 0, now()), ($1, 'p2', 'Local-Server', 'Team-One', 'running', 'healthy', 0, now())`,
      [satellite, installation.toUpperCase(), team.toUpperCase()],
    );

    await schema.migrateRest();

    const teams = async (table: string) =>
      (await db.query<{ team_id: string }>(`SELECT team_id FROM ${table}`)).rows.map((r) => r.team_id).sort();
    expect(await teams('registration_tokens')).toEqual(['Team-One', team].sort());
    expect(await teams('satellites')).toEqual([team]);
    expect(await teams('satellite_commands')).toEqual([team]);
    const processes = await db.query(
      'SELECT process_id, installation_id, team_id FROM satellite_processes ORDER BY process_id',
    );
    expect(processes.rows).toEqual([
      { process_id: 'p1', installation_id: installation, team_id: team },
      { process_id: 'p2', installation_id: 'Local-Server', team_id: 'Team-One' },
    ]);
  });
});
