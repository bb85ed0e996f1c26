import type { AccessGrant } from '@orbital/access';
import { type AuditContext, recordAudit } from '@orbital/audit';
import { publishEvent } from '@orbital/bus';
import {
  type AuditAction,
  type AuditDetails,
  apiKeyInvalidatedBroadcast,
  type ParsedRequestOf,
  type registrySubjects,
  type SatelliteHeartbeatRecorded,
  satelliteHeartbeatRecordedEvent,
  satelliteStatus,
} from '@orbital/contracts';
import { type CommonQueryMethods, timestampToIso } from '@orbital/db';
import { AppError } from '@orbital/errors';
import * as store from '../db/registryStore.ts';
import type { RegistryDeps } from './registryDeps.ts';
import { toSatelliteView } from './registryViews.ts';

type Req<K extends keyof typeof registrySubjects> = ParsedRequestOf<(typeof registrySubjects)[K]>;

export function createSatelliteOperations(deps: RegistryDeps) {
  const { pool, now, logger, bus } = deps;
  const view = (row: Parameters<typeof toSatelliteView>[0]) => toSatelliteView(row, now(), deps.heartbeatIntervalMs);

  /**
   * A satellite of a team the caller may act in (the subject's declared permission); one of a team
   * they may not even see is "not found", so ids of other teams leak nothing.
   */
  async function scoped(access: AccessGrant, satelliteId: string) {
    const row = await store.findSatellite(pool.get(), satelliteId);
    if (!row) throw new AppError('not_found', 'No such satellite');
    access.requireRecordTeam(row.team_id, 'No such satellite');
    return row;
  }

  /** Every gateway replica drops its cached verification of this satellite's key. */
  function invalidate(satelliteId: string) {
    bus.broadcast(apiKeyInvalidatedBroadcast, { satellite_id: satelliteId });
  }

  /**
   * Feeds the metrics streams. Stored is what counts: a point that fails to publish stays in the series
   * (the REST twin and the next snapshot show it), so a publish failure is logged, not returned to the
   * satellite, which would otherwise retry a heartbeat that was recorded.
   */
  async function publishHeartbeat(event: SatelliteHeartbeatRecorded) {
    try {
      await publishEvent(bus, satelliteHeartbeatRecordedEvent, event, { msgId: `heartbeat:${event.heartbeat_id}` });
    } catch (err) {
      logger.warn(
        { err, satellite_id: event.satellite_id },
        'heartbeat stored but not published to the metrics stream',
      );
    }
  }

  return {
    async lookupApiKey({ key_id }: Req<'lookupApiKey'>) {
      const row = await store.findApiKey(pool.get(), key_id);
      if (!row) throw new AppError('not_found', 'No satellite has this key id');
      return {
        satellite_id: row.id,
        satellite_type: row.satellite_type,
        team_id: row.team_id,
        status: row.status,
        api_key_hash: row.api_key_hash,
        api_key_digest: row.api_key_digest,
        ip_allowlist: row.ip_allowlist,
      };
    },

    async rememberApiKeyDigest({ key_id, api_key_hash, api_key_digest }: Req<'rememberApiKeyDigest'>) {
      return { stored: await store.rememberApiKeyDigest(pool.get(), key_id, api_key_hash, api_key_digest) };
    },

    /** `who` is asked only when the heartbeat activates the satellite: heartbeats are the hot path. */
    async heartbeat({ satellite_id, heartbeat }: Req<'heartbeat'>, who: () => AuditContext) {
      const at = now();
      const transition = await pool.get().transaction(async (tx) => {
        const changed = await store.recordHeartbeat(tx, satellite_id, heartbeat, at);
        if (changed && changed.previous_status === 'inactive') {
          const details = { satellite_url: heartbeat.satellite_url ?? null };
          await recordChange(tx, satellite_id, changed.team_id, {
            usage: { action: 'activated', actor: null, details },
            audit: { ...who(), action: 'satellite.activated', details },
          });
        }
        return changed;
      });
      if (!transition) {
        throw new AppError('unauthenticated', 'The satellite is not registered or its key was revoked', {
          instructions: 'Register again with a new registration token.',
        });
      }
      const activated = transition.previous_status === 'inactive';
      if (activated) logger.info({ event: 'satellite.activated', satellite_id }, 'satellite active');
      await publishHeartbeat(
        heartbeatRecorded(satellite_id, transition.team_id, transition.heartbeat_id, heartbeat, at),
      );
      return {
        status: satelliteStatus.parse(transition.status),
        activated,
        next_heartbeat_ms: deps.heartbeatIntervalMs,
      };
    },

    /**
     * The satellites serving the teams this request covers (the team asked for, or every team the caller
     * may see; null: all of them): their team satellites and every global satellite, which serves every
     * team. Someone in no team sees none.
     */
    async list(_request: Req<'listSatellites'>, access: AccessGrant) {
      const teams = access.teams();
      return (await store.listSatellites(pool.get(), teams, { withGlobal: teams !== null && teams.length > 0 })).map(
        view,
      );
    },

    async get({ satellite_id }: Req<'getSatellite'>, access: AccessGrant) {
      return view(await scoped(access, satellite_id));
    },

    async metrics({ satellite_id, query }: Req<'getMetrics'>, access: AccessGrant) {
      const satellite = await scoped(access, satellite_id);
      // A global satellite runs every team's servers: a team member sees the processes of their teams only.
      const visible = satellite.satellite_type === 'global' ? access.teams() : null;
      const teams = visible === null ? null : new Set(visible);
      const db = pool.get();
      const [heartbeats, processes] = await Promise.all([
        store.heartbeatSeries(db, satellite_id, query.limit, query.since ? new Date(query.since) : null),
        store.processesOf(db, satellite_id),
      ]);
      return {
        satellite_id,
        heartbeats: heartbeats.map((h) => ({ ...h, received_at: timestampToIso(h.received_at) })),
        processes: processes
          .filter((p) => teams === null || teams.has(p.team_id))
          .map((p) => ({ ...p, updated_at: timestampToIso(p.updated_at) })),
      };
    },

    async revoke({ satellite_id }: Req<'revokeSatellite'>, access: AccessGrant, who: AuditContext) {
      await scoped(access, satellite_id);
      const row = await pool.get().transaction(async (tx) => {
        const revoked = await store.revokeSatellite(tx, satellite_id, now());
        if (!revoked) throw new AppError('not_found', 'No such satellite');
        await recordChange(tx, satellite_id, revoked.team_id, {
          usage: { action: 'revoked', actor: access.userId(), details: {} },
          audit: { ...who, action: 'satellite.revoked', details: { name: revoked.name, type: revoked.satellite_type } },
        });
        return revoked;
      });
      invalidate(satellite_id);
      logger.info({ event: 'satellite.revoked', satellite_id }, 'satellite key revoked');
      return view(row);
    },

    async updateAllowlist(
      { satellite_id, ip_allowlist }: Req<'updateAllowlist'>,
      access: AccessGrant,
      who: AuditContext,
    ) {
      const current = await scoped(access, satellite_id);
      if (current.satellite_type !== 'team' && ip_allowlist.length > 0) {
        throw new AppError('validation_failed', 'IP allowlists apply to team satellites');
      }
      const row = await pool.get().transaction(async (tx) => {
        const updated = await store.updateAllowlist(tx, satellite_id, ip_allowlist, now());
        if (!updated) throw new AppError('not_found', 'No such satellite');
        await recordChange(tx, satellite_id, updated.team_id, {
          usage: { action: 'allowlist_changed', actor: access.userId(), details: { ip_allowlist } },
          audit: {
            ...who,
            action: 'satellite.allowlist_updated',
            details: { ip_allowlist, previous: current.ip_allowlist },
          },
        });
        return updated;
      });
      invalidate(satellite_id);
      return view(row);
    },
  };
}

/**
 * A change to a satellite, in its transaction: in the satellite's usage log and in the audit log, against
 * the satellite and its team. The usage entry carries no address, not even for an activation, which the
 * satellite's own heartbeat makes; the address the change came from is the audit entry's `source_ip`, from
 * the request's context (the heartbeat's for an activation, the person's for the others).
 */
async function recordChange(
  tx: CommonQueryMethods,
  satelliteId: string,
  teamId: string | null,
  change: {
    usage: { action: string; actor: string | null; details: object };
    audit: AuditContext & { action: AuditAction; details: AuditDetails };
  },
): Promise<void> {
  await store.logUsage(tx, { satelliteId, ...change.usage, ip: null });
  await recordAudit(tx, { ...change.audit, target: { kind: 'satellite', id: satelliteId }, team_id: teamId });
}

/** The stored heartbeat as the metrics route lists it: its point, and its processes as `processes` rows. */
function heartbeatRecorded(
  satelliteId: string,
  teamId: string | null,
  heartbeatId: number,
  hb: Req<'heartbeat'>['heartbeat'],
  at: Date,
): SatelliteHeartbeatRecorded {
  const sys = hb.system;
  return {
    heartbeat_id: heartbeatId,
    satellite_id: satelliteId,
    team_id: teamId,
    heartbeat: {
      received_at: at.toISOString(),
      cpu_percent: sys.cpu_percent,
      memory_used_mb: sys.memory.used_mb,
      memory_total_mb: sys.memory.total_mb,
      disk_used_mb: sys.disk?.used_mb ?? null,
      disk_total_mb: sys.disk?.total_mb ?? null,
      network_status: sys.network_status,
      process_total: sys.process_counts.total,
      process_running: sys.process_counts.running,
      process_failed: sys.process_counts.failed,
      uptime_seconds: sys.uptime_seconds,
    },
    processes: hb.processes.map((p) => ({
      process_id: p.process_id,
      installation_id: p.installation_id,
      team_id: p.team_id,
      status: p.status,
      health: p.health,
      request_count: p.request_count,
      avg_response_time_ms: p.avg_response_time_ms ?? null,
      p95_response_time_ms: p.p95_response_time_ms ?? null,
      cpu_percent: p.cpu_percent ?? null,
      memory_mb: p.memory_mb ?? null,
      updated_at: at.toISOString(),
    })),
  };
}
