import type { DbStatus } from '@orbital/contracts';
import { AppError } from '@orbital/errors';
import type { Logger } from '@orbital/logger';

/**
 * DATABASE_SETUP=auto: this replica runs database setup itself as soon as the database answers, so a
 * deployment needs no manual POST /api/db/setup. Safe with replicas: setup runs under an advisory lock
 * and a second one is a conflict, which here means another replica got there first. A database that
 * is not there yet (still starting, not reachable) is waited for with backoff; a failure that is not
 * transient is logged and tried again later, never taken for success.
 */
export function startAutomaticSetup(deps: {
  readStatus(): Promise<DbStatus>;
  setup(): Promise<{ restart_required: boolean }>;
  logger: Logger;
  retryBaseMs?: number;
  retryMaxMs?: number;
}): { stop(): void; done: Promise<'set up' | 'already set up' | 'stopped'> } {
  const base = deps.retryBaseMs ?? 1000;
  const max = deps.retryMaxMs ?? 30000;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let wake: (() => void) | undefined;
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      wake = resolve;
      timer = setTimeout(resolve, ms);
    });

  const done = (async () => {
    for (let failures = 0; !stopped; failures += 1) {
      try {
        const status = await deps.readStatus();
        if (!status.configured) {
          deps.logger.error('DATABASE_SETUP=auto, but the database is not configured (POSTGRES_HOST, ...)');
          return 'stopped' as const;
        }
        if (status.initialized) return 'already set up' as const;
        const reply = await deps.setup();
        deps.logger.info({ restart_required: reply.restart_required }, 'database set up automatically');
        return 'set up' as const;
      } catch (error) {
        if (error instanceof AppError && error.code === 'conflict') return 'already set up' as const;
        const wait = Math.min(max, base * 2 ** Math.min(failures, 10));
        const transient = error instanceof AppError && error.code === 'unavailable';
        deps.logger[transient ? 'warn' : 'error'](
          { err: error, retry_in_ms: wait },
          'automatic database setup did not complete; trying again',
        );
        await pause(wait);
      }
    }
    return 'stopped' as const;
  })();

  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
      wake?.();
    },
    done,
  };
}
