import type { Logger } from '@orbital/logger';

export type ShutdownStep = { name: string; run: () => Promise<void> };

/**
 * Runs the shutdown steps once, in the order given (callers list them in reverse of start-up: stop
 * taking work, drain NATS, close the pool), on SIGTERM or SIGINT. A second signal, or a step that
 * hangs past the deadline, exits at once so an orchestrator is never left waiting.
 */
export function handleShutdown(
  logger: Logger,
  steps: ShutdownStep[],
  options: { deadlineMs?: number } = {},
): () => Promise<void> {
  let stopping: Promise<void> | null = null;
  const shutdown = () => {
    stopping ??= (async () => {
      const timer = setTimeout(() => {
        logger.error('shutdown did not finish in time; exiting');
        process.exit(1);
      }, options.deadlineMs ?? 20000);
      timer.unref();
      for (const step of steps) {
        try {
          await step.run();
          logger.debug({ step: step.name }, 'shutdown step done');
        } catch (error) {
          logger.error({ err: error, step: step.name }, 'shutdown step failed');
        }
      }
      clearTimeout(timer);
      logger.info('stopped');
    })();
    return stopping;
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal; exiting now');
      process.exit(1);
    }
    logger.info({ signal }, 'shutting down');
    void shutdown().then(() => process.exit(0));
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  return shutdown;
}
