import { commandPollAnswer, type SatelliteCommand } from '@orbital/contracts';
import type { Logger } from '@orbital/logger';
import { describeFailure } from './createBackendClient.ts';
import type { CommandExecutor } from './createCommandExecutor.ts';
import type { SatelliteApi } from './createSatelliteApi.ts';
import type { Scheduler, SchedulerTimer } from './scheduler.ts';

/** Error backoff stops growing at 5 minutes, so a recovered backend is polled again soon. */
export const maxPollBackoffMs = 5 * 60 * 1000;

/** How long a poll asks the backend to hold it when no command is waiting. */
export const defaultCommandWaitMs = 25_000;

/**
 * Command polling, paced by the backend: the backend's
 * reply names the mode and the next interval, and the satellite obeys it. On errors the interval
 * doubles from the last one the backend gave, up to 5 minutes; the first success returns to the
 * backend's interval at once.
 *
 * Polls are long polls (docs/architecture.md): the satellite asks the gateway to hold each poll up to
 * `waitMs` and the gateway answers the moment a command is created, so a command arrives within a
 * second while the satellite still only calls out. A held answer (it says `long_poll_ms`) is followed
 * by the next poll at once; a gateway that does not hold polls is polled at the interval it names. A
 * change of `settings_changed_at` between answers makes the satellite fetch its configuration again.
 */
export function createCommandPoller(options: {
  api: SatelliteApi;
  executor: CommandExecutor;
  scheduler: Scheduler;
  logger: Logger;
  /** Until the backend has said otherwise: the normal mode's 30 s. */
  initialIntervalMs?: number;
  /** How long each poll may be held by the gateway; 0 polls without waiting. */
  waitMs?: number;
  /** Platform settings changed since the last answer: fetch the configuration again. */
  onSettingsChanged?: () => Promise<unknown>;
}) {
  const { api, executor, scheduler, logger } = options;
  let intervalMs = options.initialIntervalMs ?? 30000;
  let mode = 'normal';
  let failures = 0;
  let timer: SchedulerTimer | undefined;
  let started = false;
  let polling: Promise<number> | undefined;
  let inFlight: AbortController | undefined;
  let held = false;
  let settingsSeen: string | null | undefined;
  const waitMs = options.waitMs ?? defaultCommandWaitMs;

  const nextDelay = () => {
    if (failures === 0) return held ? 0 : intervalMs;
    return Math.min(maxPollBackoffMs, intervalMs * 2 ** failures);
  };

  const noticeSettings = (changedAt: string | null | undefined) => {
    // A gateway that does not say leaves things as they were.
    if (changedAt === undefined) return;
    const seen = settingsSeen;
    // Null ("no change since this gateway started") is a state like any other: the first change after it
    // must be noticed, or a satellite that started before any settings change would never notice one.
    settingsSeen = changedAt;
    // The first answer only says where things stand: the configuration was fetched at start.
    if (seen === undefined || seen === changedAt || changedAt === null || !options.onSettingsChanged) return;
    logger.info({ settings_changed_at: changedAt }, 'platform settings changed; fetching the configuration');
    options.onSettingsChanged().catch((err: unknown) => logger.warn({ err }, 'configuration refresh failed'));
  };

  const pollOnce = async (): Promise<number> => {
    inFlight = new AbortController();
    const suffix = waitMs > 0 ? `/commands?wait_ms=${waitMs}` : '/commands';
    // A held poll may take the whole wait: its timeout is the wait plus the usual margin.
    const result = await api.call('GET', suffix, undefined, inFlight.signal, waitMs > 0 ? waitMs + 15_000 : undefined);
    inFlight = undefined;
    let commands: SatelliteCommand[] = [];
    if (result.kind === 'ok') {
      const reply = commandPollAnswer.safeParse(result.data);
      if (reply.success) {
        failures = 0;
        intervalMs = reply.data.polling.next_poll_ms;
        mode = reply.data.polling.mode;
        held = reply.data.long_poll_ms !== undefined;
        commands = reply.data.commands as SatelliteCommand[];
        noticeSettings(reply.data.settings_changed_at);
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
    state: () => ({ mode, interval_ms: intervalMs, failures, next_delay_ms: nextDelay(), long_poll: held }),
    start() {
      started = true;
      void tick();
    },
    /** Stops polling; a command running now is not waited for (shutdown stops its server anyway). */
    stop() {
      started = false;
      scheduler.clearTimeout(timer);
      timer = undefined;
      inFlight?.abort();
    },
  };
}
