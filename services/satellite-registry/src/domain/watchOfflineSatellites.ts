import type { Bus } from '@orbital/bus';
import { identitySatelliteOfflineNoticeSubject, satelliteType, serviceIdentity } from '@orbital/contracts';
import { type LivePool, sql, timestampToIso } from '@orbital/db';
import type { Logger } from '@orbital/logger';
import { z } from 'zod';
import { offlineAfterMs } from './isSatelliteOnline.ts';

/**
 * Outages older than this when first seen are not told: a registry that was itself down for a day, or
 * a database restored from an old backup, would otherwise mail about satellites long gone.
 */
const noticeWindowMs = 24 * 3600 * 1000;

/** At most this many notices per look; the rest wait for the next look. */
const batchSize = 100;

const wentOffline = z.object({
  id: z.string(),
  name: z.string(),
  satellite_type: satelliteType,
  team_id: z.string().nullable(),
  last_heartbeat_at: z.number(),
});

export type OfflineWatch = {
  /** One look: asks identity to tell the admins of each satellite that went offline since the last. */
  check(): Promise<{ noticed: number; failed: number }>;
  start(everyMs: number): void;
  stop(): Promise<void>;
};

/**
 * Notices satellites going offline (no heartbeat for `offlineAfterMs`, the moment the console shows them
 * offline) and asks identity (`identity.notice.satellite_offline`) to mail the global admins. Once per
 * outage: a satellite is marked with the last heartbeat of the outage told, and told again only after a
 * newer heartbeat. Every replica looks; two replicas telling one outage at once ask identity twice, which
 * queues the mails once. When identity does not answer, the satellite stays unmarked and is told at the
 * next look: an outage is never forgotten because the gateway was restarting.
 */
export function createOfflineWatch(deps: {
  pool: LivePool;
  bus: Bus;
  logger: Logger;
  now: () => Date;
  heartbeatIntervalMs: number;
}): OfflineWatch {
  const { pool, bus } = deps;
  const logger = deps.logger.child({ component: 'offline-watch' });
  const identity = serviceIdentity('satellite-registry');
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<unknown> | null = null;
  let failing = false;

  async function look(): Promise<{ noticed: number; failed: number }> {
    if (!pool.isReady()) return { noticed: 0, failed: 0 };
    const now = deps.now().getTime();
    const offlineBefore = sql.timestamp(new Date(now - offlineAfterMs(deps.heartbeatIntervalMs)));
    const rows = await pool.get().any(sql.type(wentOffline)`
      SELECT id, name, satellite_type, team_id, last_heartbeat_at FROM satellites
      WHERE status = 'active' AND last_heartbeat_at < ${offlineBefore}
        AND last_heartbeat_at > ${sql.timestamp(new Date(now - noticeWindowMs))}
        AND offline_noticed_for IS DISTINCT FROM last_heartbeat_at
      ORDER BY last_heartbeat_at LIMIT ${batchSize}`);
    let noticed = 0;
    let failed = 0;
    for (const row of rows) {
      try {
        const reply = await bus.request(
          identitySatelliteOfflineNoticeSubject,
          {
            satellite_id: row.id,
            name: row.name,
            satellite_type: row.satellite_type,
            team_id: row.team_id,
            last_heartbeat_at: timestampToIso(row.last_heartbeat_at),
          },
          { identity },
        );
        // Marked only while it is still offline: a heartbeat that came meanwhile opened a new chapter.
        await pool.get().query(sql.unsafe`
          UPDATE satellites SET offline_noticed_for = last_heartbeat_at
          WHERE id = ${row.id} AND last_heartbeat_at < ${offlineBefore}`);
        noticed++;
        logger.warn(
          { event: 'satellite.offline', satellite_id: row.id, mail: reply.mail, mails_queued: reply.queued },
          'satellite went offline',
        );
      } catch (err) {
        failed++;
        // Said once per run of failures, not at every look.
        if (!failing) logger.warn({ err, satellite_id: row.id }, 'could not report a satellite offline; trying again');
        failing = true;
      }
    }
    if (failed === 0) failing = false;
    return { noticed, failed };
  }

  const check = () => {
    const run = (running ?? Promise.resolve()).then(look, look);
    running = run.catch(() => {});
    return run;
  };

  return {
    check,
    start(everyMs) {
      timer = setInterval(() => {
        check().catch((err: unknown) => logger.warn({ err }, 'offline watch failed; looking again later'));
      }, everyMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      await running;
    },
  };
}
