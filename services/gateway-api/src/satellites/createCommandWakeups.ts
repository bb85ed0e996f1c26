import type { Bus } from '@orbital/bus';
import { commandCreatedEvent, settingsChangedEvent } from '@orbital/contracts';
import type { Logger } from '@orbital/logger';

export type WakeReason = 'command' | 'settings' | 'timeout' | 'closed';

export type CommandWaiter = {
  /** Resolves when a command for the satellite is created, settings change, the wait ends, or the gateway closes. */
  wait(ms: number, signal?: AbortSignal): Promise<WakeReason>;
  /** Stops listening (always call it, woken or not). */
  cancel(): void;
};

export type CommandWakeups = {
  /** Starts listening for one satellite; register before polling, so nothing created in between is missed. */
  register(satelliteId: string): CommandWaiter;
  /** When platform settings last changed, as far as this replica has heard (null: not since it started). */
  settingsChangedAt(): string | null;
  /** Polls held now (a gauge for operators). */
  held(): number;
  /** Answers every held poll at once (the gateway is closing). */
  closeAll(): void;
  stop(): void;
};

/**
 * Lets command polls be held open (long polling) and answered the moment something is there: every
 * gateway replica watches `evt.command.created.*` (published by the registry after the command is
 * committed) and `evt.settings.changed`, and wakes the polls it holds. One subscription per replica, not
 * one per satellite, so holding thousands of polls costs a map entry each. A command created through
 * one replica wakes a poll held by another.
 */
export function createCommandWakeups(deps: { bus: Bus; logger: Logger }): CommandWakeups {
  const waiting = new Map<string, Set<(reason: WakeReason) => void>>();
  let lastSettingsChange: string | null = null;
  let count = 0;

  const wake = (satelliteId: string | null, reason: WakeReason) => {
    const targets = satelliteId === null ? [...waiting.values()] : [waiting.get(satelliteId)];
    for (const set of targets) for (const resolve of [...(set ?? [])]) resolve(reason);
  };

  const commands = deps.bus.watch(commandCreatedEvent, {}, (event) => wake(event.satellite_id, 'command'));
  const settings = deps.bus.watch(settingsChangedEvent, {}, (event) => {
    lastSettingsChange = event.changed_at;
    wake(null, 'settings');
  });

  return {
    register(satelliteId) {
      let settle: ((reason: WakeReason) => void) | undefined;
      let early: WakeReason | undefined;
      const listener = (reason: WakeReason) => {
        if (settle) settle(reason);
        else early ??= reason;
      };
      const set = waiting.get(satelliteId) ?? new Set();
      set.add(listener);
      waiting.set(satelliteId, set);
      const cancel = () => {
        set.delete(listener);
        if (set.size === 0 && waiting.get(satelliteId) === set) waiting.delete(satelliteId);
      };
      return {
        cancel,
        wait(ms, signal) {
          if (early) return Promise.resolve(early);
          return new Promise<WakeReason>((resolve) => {
            count += 1;
            const finish = (reason: WakeReason) => {
              if (!settle) return;
              settle = undefined;
              count -= 1;
              clearTimeout(timer);
              signal?.removeEventListener('abort', onAbort);
              resolve(reason);
            };
            const onAbort = () => finish('closed');
            const timer = setTimeout(() => finish('timeout'), ms);
            settle = finish;
            if (signal?.aborted) finish('closed');
            else signal?.addEventListener('abort', onAbort, { once: true });
          });
        },
      };
    },
    settingsChangedAt: () => lastSettingsChange,
    held: () => count,
    closeAll: () => wake(null, 'closed'),
    stop() {
      commands.unsubscribe();
      settings.unsubscribe();
      wake(null, 'closed');
    },
  };
}
