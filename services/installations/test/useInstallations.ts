import type { CallerIdentity } from '@orbital/contracts';
import { createTestEnvironment, type TestEnvironment } from '@orbital/testing';
import { afterAll, beforeAll } from 'vitest';
import { type Harness, startInstallations } from './installationsHarness.ts';

/** Request options that make a call as one caller. */
export const as = (identity: CallerIdentity) => ({ identity });

/**
 * Starts the installations service on its own test environment for the file (a beforeAll registered
 * before the file's own, so those run after it) and stops both after the file. What it returns stands
 * for the harness from the file's top level, where the harness does not exist yet: each property is
 * read from the started one, so a file uses it like the harness itself inside its tests and hooks.
 */
export function useInstallations(configEnv: Record<string, string> = {}): Harness {
  let env: TestEnvironment | undefined;
  let harness: Harness | undefined;
  beforeAll(async () => {
    env = await createTestEnvironment();
    harness = await startInstallations(env, undefined, configEnv);
  });
  afterAll(async () => {
    await harness?.stop();
    await env?.cleanup();
  });
  return new Proxy({} as Harness, {
    get(_, key) {
      if (!harness) throw new Error('the installations service is not up (use it inside tests and hooks)');
      return Reflect.get(harness, key);
    },
  });
}
