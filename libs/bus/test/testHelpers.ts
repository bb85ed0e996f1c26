import type { StreamDefinition } from '@orbital/contracts';

/**
 * A stream of a test file's own, so its tests do not depend on the platform's definitions: small
 * (JetStream reserves a stream's whole size) and short-lived; the test environment deletes it.
 */
export function defineTestStream(name: string, subjects: string[]): StreamDefinition {
  return {
    name,
    subjects,
    owner: 'test',
    description: 'test events',
    maxAgeMs: 60_000,
    maxBytes: 16 * 1024 * 1024,
    maxMessageBytes: 64 * 1024,
    duplicateWindowMs: 60_000,
    discard: 'new',
  };
}

/** What a test collects as it arrives; `until` resolves once a predicate holds, checked on every push instead of sleeping. */
export function collector<T>() {
  const items: T[] = [];
  const waiters: Array<{ predicate: (items: T[]) => boolean; resolve: () => void }> = [];
  return {
    items,
    push(...more: T[]) {
      items.push(...more);
      for (const waiter of [...waiters]) {
        if (waiter.predicate(items)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve();
        }
      }
    },
    until(predicate: (items: T[]) => boolean): Promise<void> {
      if (predicate(items)) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ predicate, resolve }));
    },
  };
}
