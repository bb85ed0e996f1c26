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
