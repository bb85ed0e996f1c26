import { type HeartbeatBody, heartbeatReply } from '@orbital/contracts';
import type { Logger } from '@orbital/logger';
import { describeFailure } from './createBackendClient.ts';
import type { SatelliteApi } from './createSatelliteApi.ts';
import type { Scheduler, SchedulerTimer } from './scheduler.ts';

/**
 * The 30-second heartbeat: aggregate metrics, separate from events.
 * The satellite URL goes in the first heartbeat after start only (until one is accepted). The first
 * accepted heartbeat activates a new satellite; the reply may set the next interval.
 */
export function createHeartbeat(options: {
  api: SatelliteApi;
  collect: () => Promise<HeartbeatBody>;
  scheduler: Scheduler;
  logger: Logger;
  intervalMs: number;
  satelliteUrl: string | undefined;
}) {
  const { api, scheduler, logger } = options;
  let urlSent = options.satelliteUrl === undefined;
  let timer: SchedulerTimer | undefined;
  let started = false;
  let nextMs = options.intervalMs;
  let last: { at: string; ok: boolean; status: string | null } | null = null;

  const beat = async (): Promise<boolean> => {
    const body = await options.collect();
    if (!urlSent && options.satelliteUrl) body.satellite_url = options.satelliteUrl;
    const result = await api.call('POST', '/heartbeat', body);
    const at = new Date(scheduler.now()).toISOString();
    if (result.kind === 'ok') {
      urlSent = true;
      const reply = heartbeatReply.safeParse(result.data);
      if (reply.success) {
        nextMs = reply.data.next_heartbeat_ms;
        if (reply.data.activated) logger.info('first heartbeat accepted: the satellite is active');
      }
      last = { at, ok: true, status: reply.success ? reply.data.status : null };
      return true;
    }
    last = { at, ok: false, status: last?.status ?? null };
    logger.warn({ reason: describeFailure(result) }, 'heartbeat not delivered');
    return false;
  };

  const tick = async () => {
    try {
      return await beat();
    } catch (error) {
      logger.error({ err: error }, 'heartbeat failed');
      return false;
    } finally {
      if (started) {
        scheduler.clearTimeout(timer);
        timer = scheduler.setTimeout(() => void tick(), nextMs);
      }
    }
  };

  return {
    /** Sends one heartbeat now; true when the backend accepted it. */
    beat: tick,
    last: () => last,
    start() {
      started = true;
      scheduler.clearTimeout(timer);
      timer = scheduler.setTimeout(() => void tick(), nextMs);
    },
    stop() {
      started = false;
      scheduler.clearTimeout(timer);
      timer = undefined;
    },
  };
}
