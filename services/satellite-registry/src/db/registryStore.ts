import type { CommandPriority, HeartbeatBody } from '@orbital/contracts';
import { commandPriorities } from '@orbital/contracts';
import { type CommonQueryMethods, sql } from '@orbital/db';
import { z } from 'zod';
import {
  apiKeyRow,
  type CommandRow,
  commandRow,
  heartbeatRow,
  processRow,
  satelliteRow,
  tokenRow,
} from './registryRows.ts';

const satelliteColumns = sql.fragment`id, name, satellite_type, team_id, status, capabilities, system_info,
  satellite_url, ip_allowlist, created_by, registered_at, last_heartbeat_at, last_command_at`;
const tokenColumns = sql.fragment`id, scope, team_id, description, created_by, created_at, expires_at, used_at,
  used_by_satellite_id, revoked_at`;
const commandColumns = sql.fragment`id, satellite_id, team_id, command_type, priority, payload, correlation_id,
  status, attempts, max_attempts, result, error_message, created_at, expires_at, updated_at`;

export const priorityRank = (priority: CommandPriority): number => commandPriorities.indexOf(priority);

// ------------------------------------------------------------------------------------ tokens

export async function insertToken(
  db: CommonQueryMethods,
  token: {
    id: string;
    scope: 'global' | 'team';
    teamId: string | null;
    description: string | null;
    createdBy: string | null;
    createdAt: Date;
    expiresAt: Date;
  },
) {
  return db.one(sql.type(tokenRow)`
    INSERT INTO registration_tokens (id, scope, team_id, description, created_by, created_at, expires_at)
    VALUES (${token.id}, ${token.scope}, ${token.teamId}, ${token.description}, ${token.createdBy},
            ${sql.timestamp(token.createdAt)}, ${sql.timestamp(token.expiresAt)})
    RETURNING ${tokenColumns}`);
}

export async function listTokens(db: CommonQueryMethods, scope: 'global' | 'team', teamId: string | null) {
  return db.any(sql.type(tokenRow)`
    SELECT ${tokenColumns} FROM registration_tokens
    WHERE scope = ${scope} AND team_id IS NOT DISTINCT FROM ${teamId}
    ORDER BY created_at DESC, id
    LIMIT 500`);
}

export async function findToken(db: CommonQueryMethods, id: string) {
  return db.maybeOne(sql.type(tokenRow)`SELECT ${tokenColumns} FROM registration_tokens WHERE id = ${id}`);
}

export async function revokeToken(db: CommonQueryMethods, id: string, now: Date) {
  return db.maybeOne(sql.type(tokenRow)`
    UPDATE registration_tokens SET revoked_at = COALESCE(revoked_at, ${sql.timestamp(now)})
    WHERE id = ${id} AND used_at IS NULL
    RETURNING ${tokenColumns}`);
}

/**
 * Consumes a token: only one transaction can move `used_at` from null, because the row lock makes a
 * concurrent consumer wait and then re-check the condition, which no longer holds.
 */
export async function consumeToken(db: CommonQueryMethods, id: string, satelliteId: string, now: Date) {
  return db.maybeOne(sql.type(tokenRow)`
    UPDATE registration_tokens SET used_at = ${sql.timestamp(now)}, used_by_satellite_id = ${satelliteId}
    WHERE id = ${id} AND used_at IS NULL AND revoked_at IS NULL AND expires_at > ${sql.timestamp(now)}
    RETURNING ${tokenColumns}`);
}

// ------------------------------------------------------------------------------------ satellites

export async function insertSatellite(
  db: CommonQueryMethods,
  s: {
    id: string;
    name: string;
    type: 'global' | 'team';
    teamId: string | null;
    capabilities: string[];
    systemInfo: Record<string, unknown>;
    satelliteUrl: string | null;
    apiKeyId: string;
    apiKeyHash: string;
    apiKeyDigest: string;
    tokenId: string;
    createdBy: string | null;
    now: Date;
  },
) {
  return db.one(sql.type(satelliteRow)`
    INSERT INTO satellites (id, name, satellite_type, team_id, capabilities, system_info, satellite_url,
      api_key_id, api_key_hash, api_key_digest, registration_token_id, created_by, registered_at, updated_at)
    VALUES (${s.id}, ${s.name}, ${s.type}, ${s.teamId}, ${sql.jsonb(s.capabilities)}, ${sql.jsonb(s.systemInfo as never)},
      ${s.satelliteUrl}, ${s.apiKeyId}, ${s.apiKeyHash}, ${s.apiKeyDigest}, ${s.tokenId}, ${s.createdBy},
      ${sql.timestamp(s.now)}, ${sql.timestamp(s.now)})
    RETURNING ${satelliteColumns}`);
}

export async function findSatellite(db: CommonQueryMethods, id: string) {
  return db.maybeOne(sql.type(satelliteRow)`SELECT ${satelliteColumns} FROM satellites WHERE id = ${id}`);
}

export async function findApiKey(db: CommonQueryMethods, keyId: string) {
  return db.maybeOne(sql.type(apiKeyRow)`
    SELECT id, satellite_type, team_id, status, ip_allowlist, api_key_hash, api_key_digest
    FROM satellites WHERE api_key_id = ${keyId}`);
}

/**
 * Keeps the digest of a key just verified against `apiKeyHash`: only while the row still holds that hash,
 * is not revoked and has no digest yet, so a late verification never writes over anything newer.
 */
export async function rememberApiKeyDigest(db: CommonQueryMethods, keyId: string, apiKeyHash: string, digest: string) {
  const result = await db.query(sql.unsafe`
    UPDATE satellites SET api_key_digest = ${digest}
    WHERE api_key_id = ${keyId} AND api_key_hash = ${apiKeyHash} AND api_key_digest IS NULL AND status <> 'revoked'`);
  return result.rowCount > 0;
}

/** All satellites (teamIds null) or the team satellites of the given teams. */
/**
 * Satellites by team: every one for null; otherwise the team satellites of those teams, and the global
 * satellites too when `withGlobal` (they serve every team).
 */
export async function listSatellites(
  db: CommonQueryMethods,
  teamIds: readonly string[] | null,
  options: { withGlobal?: boolean } = {},
) {
  const ofTeams = sql.fragment`team_id = ANY(${sql.array(teamIds ?? [], 'text')})`;
  const filter =
    teamIds === null
      ? sql.fragment`TRUE`
      : options.withGlobal
        ? sql.fragment`(satellite_type = 'global' OR ${ofTeams})`
        : ofTeams;
  return db.any(sql.type(satelliteRow)`
    SELECT ${satelliteColumns} FROM satellites WHERE ${filter} ORDER BY registered_at DESC, id LIMIT 1000`);
}

export async function revokeSatellite(db: CommonQueryMethods, id: string, now: Date) {
  return db.maybeOne(sql.type(satelliteRow)`
    UPDATE satellites SET status = 'revoked', revoked_at = COALESCE(revoked_at, ${sql.timestamp(now)}),
      updated_at = ${sql.timestamp(now)}
    WHERE id = ${id} RETURNING ${satelliteColumns}`);
}

export async function updateAllowlist(db: CommonQueryMethods, id: string, allowlist: string[], now: Date) {
  return db.maybeOne(sql.type(satelliteRow)`
    UPDATE satellites SET ip_allowlist = ${sql.array(allowlist, 'text')}, updated_at = ${sql.timestamp(now)}
    WHERE id = ${id} RETURNING ${satelliteColumns}`);
}

export async function logUsage(
  db: CommonQueryMethods,
  entry: { satelliteId: string | null; action: string; actor: string | null; ip: string | null; details: object },
) {
  await db.query(sql.unsafe`
    INSERT INTO satellite_usage_logs (satellite_id, action, actor, ip_address, details)
    VALUES (${entry.satelliteId}, ${entry.action}, ${entry.actor}, ${entry.ip}, ${sql.jsonb(entry.details as never)})`);
}

// ------------------------------------------------------------------------------------ heartbeats

/** Records the heartbeat and returns the status before and after (the first moves inactive to active). */
export async function recordHeartbeat(db: CommonQueryMethods, satelliteId: string, hb: HeartbeatBody, now: Date) {
  const at = sql.timestamp(now);
  const transition = await db.maybeOne(sql.type(
    z.object({ status: z.string(), previous_status: z.string(), team_id: z.string().nullable() }),
  )`
    WITH previous AS (SELECT id, status FROM satellites WHERE id = ${satelliteId} FOR UPDATE)
    UPDATE satellites s SET
      status = CASE WHEN previous.status = 'inactive' THEN 'active' ELSE previous.status END,
      last_heartbeat_at = ${at},
      satellite_url = COALESCE(${hb.satellite_url ?? null}, s.satellite_url),
      updated_at = ${at}
    FROM previous WHERE s.id = previous.id AND previous.status <> 'revoked'
    RETURNING s.status, previous.status AS previous_status, s.team_id`);
  if (!transition) return null;
  const sys = hb.system;
  const heartbeatId = await db.oneFirst(sql.type(z.object({ id: z.coerce.number() }))`
    INSERT INTO satellite_heartbeats (satellite_id, received_at, cpu_percent, memory_used_mb, memory_total_mb,
      disk_used_mb, disk_total_mb, network_status, process_total, process_running, process_failed, uptime_seconds,
      processes)
    VALUES (${satelliteId}, ${at}, ${sys.cpu_percent}, ${sys.memory.used_mb}, ${sys.memory.total_mb},
      ${sys.disk?.used_mb ?? null}, ${sys.disk?.total_mb ?? null}, ${sys.network_status}, ${sys.process_counts.total},
      ${sys.process_counts.running}, ${sys.process_counts.failed}, ${sys.uptime_seconds},
      ${sql.jsonb(hb.processes as never)})
    RETURNING id`);
  if (hb.processes.length > 0) {
    await db.query(sql.unsafe`
      INSERT INTO satellite_processes (satellite_id, process_id, installation_id, team_id, status, health,
        request_count, avg_response_time_ms, p95_response_time_ms, cpu_percent, memory_mb, updated_at)
      SELECT ${satelliteId}, p.process_id, p.installation_id, p.team_id, p.status, p.health, p.request_count,
        p.avg_response_time_ms, p.p95_response_time_ms, p.cpu_percent, p.memory_mb, ${at}
      FROM jsonb_to_recordset(${sql.jsonb(hb.processes as never)}) AS p(process_id text, installation_id text,
        team_id text, status text, health text, request_count integer, avg_response_time_ms double precision,
        p95_response_time_ms double precision, cpu_percent double precision, memory_mb double precision)
      ON CONFLICT (satellite_id, process_id) DO UPDATE SET installation_id = EXCLUDED.installation_id,
        team_id = EXCLUDED.team_id, status = EXCLUDED.status, health = EXCLUDED.health,
        request_count = EXCLUDED.request_count, avg_response_time_ms = EXCLUDED.avg_response_time_ms,
        p95_response_time_ms = EXCLUDED.p95_response_time_ms, cpu_percent = EXCLUDED.cpu_percent,
        memory_mb = EXCLUDED.memory_mb, updated_at = EXCLUDED.updated_at`);
  }
  return { ...transition, heartbeat_id: heartbeatId };
}

export async function heartbeatSeries(db: CommonQueryMethods, satelliteId: string, limit: number, since: Date | null) {
  return db.any(sql.type(heartbeatRow)`
    SELECT received_at, cpu_percent, memory_used_mb, memory_total_mb, disk_used_mb, disk_total_mb, network_status,
      process_total, process_running, process_failed, uptime_seconds
    FROM satellite_heartbeats
    WHERE satellite_id = ${satelliteId} ${since ? sql.fragment`AND received_at >= ${sql.timestamp(since)}` : sql.fragment``}
    ORDER BY received_at DESC, id DESC LIMIT ${limit}`);
}

export async function processesOf(db: CommonQueryMethods, satelliteId: string) {
  return db.any(sql.type(processRow)`
    SELECT process_id, installation_id, team_id, status, health, request_count, avg_response_time_ms,
      p95_response_time_ms, cpu_percent, memory_mb, updated_at
    FROM satellite_processes WHERE satellite_id = ${satelliteId} ORDER BY process_id`);
}

// ------------------------------------------------------------------------------------ commands

export async function insertCommands(
  db: CommonQueryMethods,
  c: {
    satelliteIds: readonly string[];
    ids: readonly string[];
    teamId: string;
    type: string;
    priority: CommandPriority;
    payload: Record<string, unknown>;
    correlationId: string | null;
    maxAttempts: number;
    expiresAt: Date | null;
    now: Date;
  },
): Promise<readonly CommandRow[]> {
  if (c.satelliteIds.length === 0) return [];
  const at = sql.timestamp(c.now);
  // Commands of these satellites that expired undelivered leave the queue now, not only when their
  // satellite next polls: a satellite that never starts does not collect an ever-growing queue.
  await db.query(sql.unsafe`
    UPDATE satellite_commands SET status = 'expired', error_message = 'The command expired before the satellite completed it',
      lease_expires_at = NULL, updated_at = ${at}, completed_at = ${at}
    WHERE satellite_id = ANY(${sql.array(c.satelliteIds, 'uuid')}) AND status IN ('pending', 'leased')
      AND expires_at IS NOT NULL AND expires_at <= ${at}`);
  const rows = await db.any(sql.type(commandRow)`
    INSERT INTO satellite_commands (id, satellite_id, team_id, command_type, priority, priority_rank, payload,
      correlation_id, max_attempts, expires_at, created_at, updated_at)
    SELECT t.id, t.satellite_id, ${c.teamId}, ${c.type}, ${c.priority}, ${priorityRank(c.priority)},
      ${sql.jsonb(c.payload as never)}, ${c.correlationId}, ${c.maxAttempts},
      ${c.expiresAt ? sql.timestamp(c.expiresAt) : null}, ${at}, ${at}
    FROM ${sql.unnest(
      c.ids.map((id, i) => [id, c.satelliteIds[i] as string]),
      ['uuid', 'uuid'],
    )} AS t(id, satellite_id)
    RETURNING ${commandColumns}`);
  await db.query(sql.unsafe`
    UPDATE satellites SET last_command_at = ${at} WHERE id = ANY(${sql.array(c.satelliteIds, 'uuid')})`);
  return rows;
}

/** Satellites that serve a team: its team satellites and every global satellite, revoked ones excepted. */
export async function satellitesServingTeam(db: CommonQueryMethods, teamId: string) {
  return db.anyFirst(sql.type(z.object({ id: z.string() }))`
    SELECT id FROM satellites
    WHERE status <> 'revoked' AND (satellite_type = 'global' OR team_id = ${teamId})
    ORDER BY id`);
}

/** What a poll learns in its one statement: the satellite as it stands, and the commands it leased. */
const polledRow = satelliteRow.pick({ status: true, registered_at: true, last_command_at: true }).extend({
  still_pending: z.boolean(),
  id: z.string().nullable(),
  command_type: commandRow.shape.command_type.nullable(),
  priority: commandRow.shape.priority.nullable(),
  payload: commandRow.shape.payload.nullable(),
  correlation_id: z.string().nullable(),
  created_at: z.number().nullable(),
  expires_at: z.number().nullable(),
});

export type PolledCommand = Pick<
  CommandRow,
  'id' | 'command_type' | 'priority' | 'payload' | 'correlation_id' | 'created_at' | 'expires_at'
>;

export type PollOutcome = {
  satellite: { status: 'inactive' | 'active' | 'revoked'; registeredAt: number; lastCommandAt: number | null };
  commands: PolledCommand[];
  /** Deliverable commands remain beyond this poll's limit. */
  stillPending: boolean;
};

/**
 * One poll of a satellite's queue, in one statement (one round trip, its own transaction):
 *
 * - reads the satellite; nothing happens to the queue of a satellite that is not active;
 * - ends the queue life of the commands that can no longer be delivered: past their expiry (`expired`),
 *   or whose last lease ran out with no delivery left (`failed`);
 * - leases up to `limit` deliverable commands (pending, or leased with the lease run out and deliveries
 *   left, not expired) by priority, then age. A team satellite only ever gets its own team's commands,
 *   even a wrongly queued row. SKIP LOCKED lets two concurrent polls of one satellite split the queue
 *   instead of delivering a command twice; one row past the limit tells whether work remains.
 *
 * The retired and the leased rows are disjoint (expired or out of deliveries, against neither), so the
 * statement's parts never touch the same row. Null when the satellite does not exist.
 */
export async function pollCommands(
  db: CommonQueryMethods,
  q: { satelliteId: string; limit: number; leaseMs: number; now: Date },
): Promise<PollOutcome | null> {
  const at = sql.timestamp(q.now);
  const until = sql.timestamp(new Date(q.now.getTime() + q.leaseMs));
  // A named prepared statement: PostgreSQL plans it once per connection (a generic plan after a few
  // runs) instead of on every poll, where planning cost several times the execution (0.5 ms against
  // 0.1 ms, EXPLAIN ANALYZE on this machine). The text never changes; every value is a parameter.
  const rows = await db.any(sql.prepared('registry_poll_commands', polledRow)`
    WITH sat AS (
      SELECT id, status, satellite_type, team_id, registered_at, last_command_at FROM satellites WHERE id = ${q.satelliteId}
    ),
    retired AS (
      UPDATE satellite_commands c SET
        status = CASE WHEN c.expires_at IS NOT NULL AND c.expires_at <= ${at} THEN 'expired' ELSE 'failed' END,
        error_message = CASE WHEN c.expires_at IS NOT NULL AND c.expires_at <= ${at}
          THEN 'The command expired before the satellite completed it'
          ELSE 'The satellite did not acknowledge the command within its lease, ' || c.attempts || ' times' END,
        lease_expires_at = NULL, updated_at = ${at}, completed_at = ${at}
      FROM sat
      WHERE sat.status = 'active' AND c.satellite_id = ${q.satelliteId} AND c.status IN ('pending', 'leased')
        AND ((c.expires_at IS NOT NULL AND c.expires_at <= ${at})
          OR (c.status = 'leased' AND c.lease_expires_at <= ${at} AND c.attempts >= c.max_attempts))
    ),
    candidates AS (
      SELECT c.id, c.priority_rank, c.created_at FROM satellite_commands c, sat
      WHERE sat.status = 'active' AND c.satellite_id = ${q.satelliteId} AND c.status IN ('pending', 'leased')
        AND (sat.satellite_type = 'global' OR c.team_id = sat.team_id)
        AND (c.status = 'pending' OR c.lease_expires_at <= ${at})
        AND c.attempts < c.max_attempts
        AND (c.expires_at IS NULL OR c.expires_at > ${at})
      ORDER BY c.priority_rank, c.created_at, c.id
      LIMIT ${q.limit + 1}
      FOR UPDATE OF c SKIP LOCKED
    ),
    leased AS (
      UPDATE satellite_commands c SET status = 'leased', attempts = c.attempts + 1, lease_expires_at = ${until},
        updated_at = ${at}
      FROM (SELECT id FROM candidates ORDER BY priority_rank, created_at, id LIMIT ${q.limit}) picked
      WHERE c.id = picked.id
      RETURNING c.id, c.command_type, c.priority, c.priority_rank, c.payload, c.correlation_id, c.created_at,
        c.expires_at
    )
    SELECT sat.status, sat.registered_at, sat.last_command_at,
      (SELECT count(*) FROM candidates) > ${q.limit} AS still_pending,
      l.id, l.command_type, l.priority, l.payload, l.correlation_id, l.created_at, l.expires_at
    FROM sat LEFT JOIN leased l ON true
    ORDER BY l.priority_rank, l.created_at, l.id`);
  const [first] = rows;
  if (!first) return null;
  const commands: PolledCommand[] = [];
  for (const row of rows) {
    if (row.id === null || row.command_type === null || row.priority === null || row.created_at === null) continue;
    commands.push({
      id: row.id,
      command_type: row.command_type,
      priority: row.priority,
      payload: row.payload ?? {},
      correlation_id: row.correlation_id,
      created_at: row.created_at,
      expires_at: row.expires_at,
    });
  }
  return {
    satellite: { status: first.status, registeredAt: first.registered_at, lastCommandAt: first.last_command_at },
    commands,
    stillPending: first.still_pending,
  };
}

/**
 * What the satellite's next poll would lease, without leasing it (an administrator looking at its
 * queue): the same deliverable commands in the same order, nothing changed. Null when it does not exist.
 */
export async function peekCommands(
  db: CommonQueryMethods,
  q: { satelliteId: string; limit: number; now: Date },
): Promise<PollOutcome | null> {
  const satellite = await db.maybeOne(
    sql.type(
      satelliteRow.pick({
        status: true,
        satellite_type: true,
        team_id: true,
        registered_at: true,
        last_command_at: true,
      }),
    )`SELECT status, satellite_type, team_id, registered_at, last_command_at FROM satellites WHERE id = ${q.satelliteId}`,
  );
  if (!satellite) return null;
  const at = sql.timestamp(q.now);
  const rows = await db.any(sql.type(commandRow)`
    SELECT ${commandColumns} FROM satellite_commands c
    WHERE c.satellite_id = ${q.satelliteId} AND c.status IN ('pending', 'leased')
      AND (${satellite.satellite_type} = 'global' OR c.team_id = ${satellite.team_id})
      AND (c.status = 'pending' OR c.lease_expires_at <= ${at})
      AND c.attempts < c.max_attempts
      AND (c.expires_at IS NULL OR c.expires_at > ${at})
    ORDER BY c.priority_rank, c.created_at, c.id
    LIMIT ${q.limit + 1}`);
  return {
    satellite: {
      status: satellite.status,
      registeredAt: satellite.registered_at,
      lastCommandAt: satellite.last_command_at,
    },
    commands: satellite.status === 'active' ? rows.slice(0, q.limit) : [],
    stillPending: satellite.status === 'active' && rows.length > q.limit,
  };
}

export async function lockCommand(db: CommonQueryMethods, id: string) {
  return db.maybeOne(
    sql.type(commandRow)`SELECT ${commandColumns} FROM satellite_commands WHERE id = ${id} FOR UPDATE`,
  );
}

export async function findCommand(db: CommonQueryMethods, id: string) {
  return db.maybeOne(sql.type(commandRow)`SELECT ${commandColumns} FROM satellite_commands WHERE id = ${id}`);
}

export async function updateCommandStatus(
  db: CommonQueryMethods,
  id: string,
  change: {
    status: CommandRow['status'];
    result: Record<string, unknown> | null;
    errorMessage: string | null;
    terminal: boolean;
    now: Date;
  },
) {
  const at = sql.timestamp(change.now);
  return db.one(sql.type(commandRow)`
    UPDATE satellite_commands SET status = ${change.status}, lease_expires_at = NULL, updated_at = ${at},
      result = COALESCE(${change.result ? sql.jsonb(change.result as never) : null}, result),
      error_message = COALESCE(${change.errorMessage}, error_message),
      completed_at = ${change.terminal ? at : null}
    WHERE id = ${id} RETURNING ${commandColumns}`);
}
