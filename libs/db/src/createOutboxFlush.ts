/** Flushing an outbox: `flush` asks for a pass, `stop` lets the pass under way end and asks for no more. */
export type OutboxFlush = { flush(): Promise<void>; stop(): Promise<void> };

/**
 * Passes over an outbox table (rows written in a transaction, delivered after its commit), one at a time:
 * a flush asked for while a pass runs is answered by one more pass after it, however many were asked
 * for, so rows committed during a pass are not left for the next tick of a timer, and two passes never
 * deliver the same rows at once. Every caller waits until the passes end. `pass` handles its own
 * failures: the outbox keeps what it could not deliver for a later pass.
 */
export function createOutboxFlush(pass: () => Promise<void>): OutboxFlush {
  let running: Promise<void> | null = null;
  let again = false;
  let stopped = false;

  function flush(): Promise<void> {
    // A relay's timer or a late request may still ask after shutdown began: its pool is closing, and
    // what is left in the outbox is delivered by the next process.
    if (stopped) return running ?? Promise.resolve();
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        await pass();
      } while (again && !stopped);
    })().finally(() => {
      running = null;
    });
    return running;
  }

  return {
    flush,
    async stop() {
      stopped = true;
      await running;
    },
  };
}
