import { commandPollReply, type SatelliteCommand } from '@orbital/contracts';
import type { Logger } from '@orbital/logger';
import { describeFailure } from './createBackendClient.ts';
import type { CommandExecutor } from './createCommandExecutor.ts';
import type { SatelliteApi } from './createSatelliteApi.ts';
import type { Scheduler, SchedulerTimer } from './scheduler.ts';

/** Spec "Limits": error backoff up to 5 minutes. */
export const maxPollBackoffMs = 5 * 60 * 1000;

/**
 * Command polling (spec "Command priority polling modes", DESIGN.md improvement 4): the backend's
 * reply names the mode and the next interval, and the satellite obeys it. On errors the interval
 * doubles from the last one the backend gave, up to 5 minutes; the first success returns to the
 * backend's interval at once.
 */
export function createCommandPoller(options: {
  api: SatelliteApi;
  executor: CommandExecutor;
  scheduler: Scheduler;
  logger: Logger;
  /** Until the backend has said otherwise: the normal mode's 30 s. */
  initialIntervalMs?: number;
}) {
  const { api, executor, scheduler, logger } = options;
  let intervalMs = options.initialIntervalMs ?? 30000;
  let mode = 'normal';
  let failures = 0;
  let timer: SchedulerTimer | undefined;
  let started = false;
  let polling: Promise<number> | undefined;

  const nextDelay = () => (failures === 0 ? intervalMs : Math.min(maxPollBackoffMs, intervalMs * 2 ** failures));

  const pollOnce = async (): Promise<number> => {
    const result = await api.call('GET', '/commands');
    let commands: SatelliteCommand[] = [];
    if (result.kind === 'ok') {
      const reply = commandPollReply.safeParse(result.data);
      if (reply.success) {
        failures = 0;
        intervalMs = reply.data.polling.next_poll_ms;
        mode = reply.data.polling.mode;
        commands = reply.data.commands as SatelliteCommand[];
      } else {
        failures++;
        logger.warn({ issues: reply.error.issues.length }, 'command poll reply not understood');
      }
    } else {
      failures++;
      logger.warn({ reason: describeFailure(result), retry_in_ms: nextDelay() }, 'command poll failed; backing off');
    }
    if (commands.length > 0) await executor.handle(commands);
    return nextDelay();
  };

  const schedule = (ms: number) => {
    if (!started) return;
    scheduler.clearTimeout(timer);
    timer = scheduler.setTimeout(() => void tick(), ms);
  };

  const tick = async () => {
    if (polling) return;
    scheduler.clearTimeout(timer);
    timer = undefined;
    let delay = nextDelay();
    try {
      polling = pollOnce();
      delay = await polling;
    } catch (error) {
      failures++;
      delay = nextDelay();
      logger.error({ err: error }, 'command handling failed');
    } finally {
      polling = undefined;
      schedule(delay);
    }
  };

  return {
    /** Polls now (and schedules the next poll); resolves when the commands it got have run. */
    poll: tick,
    state: () => ({ mode, interval_ms: intervalMs, failures, next_delay_ms: nextDelay() }),
    start() {
      started = true;
      void tick();
    },
    /** Stops polling; a command running now is not waited for (shutdown stops its server anyway). */
    stop() {
      started = false;
      scheduler.clearTimeout(timer);
      timer = undefined;
    },
  };
}
