import { afterEach, beforeEach } from 'vitest';
import { createManualScheduler, type ManualScheduler } from './createManualScheduler.ts';
import { type ScriptedBackend, startScriptedBackend } from './createScriptedBackend.ts';
import { createCapturedLogger, createLinkParts } from './linkFixture.ts';

type ScriptedLink = {
  backend: ScriptedBackend;
  scheduler: ManualScheduler;
  log: ReturnType<typeof createCapturedLogger>;
};
type LinkPartsOptions = Parameters<typeof createLinkParts>[0];

/**
 * Gives every test of the file a fresh scripted backend, a manual scheduler and a logger it can read
 * back, and closes the backend after the test, so no test sees another's requests or lines. The
 * returned object reads the current test's parts.
 */
export function useScriptedLink(): Readonly<ScriptedLink> & {
  /** The link's parts on this test's backend, scheduler and logger; a test gives only what differs. */
  parts(options?: Partial<LinkPartsOptions>): ReturnType<typeof createLinkParts>;
} {
  let current: ScriptedLink | undefined;
  beforeEach(async () => {
    current = {
      backend: await startScriptedBackend(),
      scheduler: createManualScheduler(),
      log: createCapturedLogger(),
    };
  });
  afterEach(async () => {
    await current?.backend.close();
    current = undefined;
  });
  const now = () => {
    if (!current) throw new Error('the scripted link exists only inside a test');
    return current;
  };
  return {
    get backend() {
      return now().backend;
    },
    get scheduler() {
      return now().scheduler;
    },
    get log() {
      return now().log;
    },
    parts(options = {}) {
      const { backend, scheduler, log } = now();
      return createLinkParts({ backendUrl: backend.url, scheduler, logger: log.logger, ...options });
    },
  };
}
