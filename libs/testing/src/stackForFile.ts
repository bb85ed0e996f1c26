import { afterAll, beforeAll } from 'vitest';

/**
 * One stack for all the tests of a file: started before the first test, stopped after the last. What
 * it returns stands for the stack (every field is read from the started one), so tests, and the helpers
 * they hand it to, are written as if it were the stack itself. Kept out of the package's main entry
 * because it registers vitest hooks, which only a test file may do.
 */
export function stackForFile<Stack extends { stop(): Promise<void> }>(start: () => Promise<Stack>): Stack {
  let started: Stack | undefined;
  beforeAll(async () => {
    started = await start();
  });
  afterAll(async () => {
    await started?.stop();
  });
  return new Proxy({} as Stack, {
    get(_target, key) {
      if (!started) throw new Error('The stack starts before the first test: use it in tests and hooks only');
      return Reflect.get(started, key);
    },
  });
}
