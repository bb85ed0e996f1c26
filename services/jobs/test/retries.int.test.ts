import type { ScheduleName } from '@orbital/contracts';
import { AppError } from '@orbital/errors';
import { createTestEnvironment, type TestEnvironment } from '@orbital/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  deleteQueueKeys,
  type InProcessReplica,
  isolatedEnv,
  logLines,
  startInProcessReplica,
  startWorkResponder,
  statusOf,
  type TestSlice,
  waitFor,
} from './jobsHarness.ts';

// Every schedule ticks once when its scheduler is first created, then once an hour: each test sees
// exactly one tick per schedule, whatever the machine's speed.
const oneTickEach = {
  JOBS_CREDENTIAL_VALIDATION_EVERY_MS: '3600000',
  JOBS_TEMPLATE_HEALTH_EVERY_MS: '3600000',
  JOBS_LOG_CLEANUP_EVERY_MS: '3600000',
  JOBS_ATTEMPTS: '3',
  JOBS_BACKOFF_MS: '50',
  // Failures are warned about at once here; the quiet start has its own test.
  JOBS_START_GRACE_MS: '0',
};

let env: TestEnvironment;
const prefixes: string[] = [];
beforeAll(async () => {
  env = await createTestEnvironment({ withDatabase: false });
});
afterAll(async () => {
  for (const prefix of prefixes) await deleteQueueKeys(env.redisUrl, prefix);
  await env.cleanup();
});

function slice(name: string, overrides: Record<string, string> = {}) {
  const s = isolatedEnv(env, name, { ...oneTickEach, ...overrides });
  prefixes.push(s.queuePrefix);
  return s;
}

type Responder = Awaited<ReturnType<typeof startWorkResponder>>;

/** Runs a test against one replica and a responder doing the work as `behaviours` say; stops both after. */
async function withReplica(
  s: TestSlice,
  behaviours: Parameters<typeof startWorkResponder>[1],
  run: (replica: InProcessReplica, responder: Responder) => Promise<void>,
): Promise<void> {
  const responder = await startWorkResponder(s, behaviours);
  const replica = await startInProcessReplica(s);
  try {
    await run(replica, responder);
  } finally {
    await replica.stop();
    await responder.stop();
  }
}

/** Work that the owning service always refuses with this error. */
function alwaysFails(schedule: ScheduleName, ...error: ConstructorParameters<typeof AppError>) {
  return {
    [schedule]: () => {
      throw new AppError(...error);
    },
  };
}

/** Waits until the schedule's last run has this outcome; its status then. */
function lastRun(replica: InProcessReplica, schedule: ScheduleName, outcome: string) {
  return waitFor(`${schedule} to be ${outcome}`, async () => {
    const st = statusOf(await replica.app.readStatus(), schedule);
    return st.last_run?.outcome === outcome ? st : undefined;
  });
}

describe('retries and failures', () => {
  it('retries a failing tick with the same tick_at, then records the success', async () => {
    const s = slice('retry');
    await withReplica(
      s,
      {
        template_health: (_payload, received) => {
          if (received.length <= 2) throw new AppError('unavailable', 'database restarting');
          return { templates_updated: 7 };
        },
      },
      async (replica, responder) => {
        const status = await lastRun(replica, 'template_health', 'succeeded');
        const requests = responder.of('template_health');
        expect(requests).toHaveLength(3);
        expect(new Set(requests.map((r) => r.payload.tick_at)).size).toBe(1);
        expect(requests.every((r) => r.identity.kind === 'service')).toBe(true);
        expect(status.last_run).toMatchObject({
          outcome: 'succeeded',
          attempts: 3,
          result: { templates_updated: 7 },
          error: null,
        });
        const run = status.last_run;
        expect(run?.finished_at).not.toBeNull();
        expect(run?.duration_ms).toBe(Date.parse(run?.finished_at ?? '') - Date.parse(run?.started_at ?? ''));
        expect(status.failed_last_24h).toBe(0);
        const retryWarnings = logLines(replica.logs()).filter(
          (l) => l.msg === 'tick failed; will retry' && l.schedule === 'template_health',
        );
        expect(retryWarnings).toHaveLength(2);
        expect(retryWarnings[0]?.reason).toBe('unavailable: database restarting');
      },
    );
  });

  it('waits quietly for an owning service that is still starting, then warns as usual', async () => {
    const s = slice('starting', { JOBS_START_GRACE_MS: '600000' });
    await withReplica(
      s,
      {
        template_health: (_payload, received) => {
          if (received.length <= 2) throw new AppError('unavailable', 'The database connection is not ready yet');
          return { templates_updated: 1 };
        },
      },
      async (replica) => {
        await lastRun(replica, 'template_health', 'succeeded');
        const lines = logLines(replica.logs()).filter((l) => l.schedule === 'template_health');
        expect(lines.filter((l) => l.msg === 'tick failed; will retry')).toEqual([]);
        const waits = lines.filter((l) => l.msg === 'the owning service is starting; the tick waits for it');
        expect(waits).toHaveLength(2);
        expect(waits.every((l) => l.level === 'debug')).toBe(true);
      },
    );
  });

  it('marks a tick failed after its last attempt, logs it, and counts it', async () => {
    const s = slice('failing');
    await withReplica(s, alwaysFails('log_cleanup', 'internal', 'disk full'), async (replica, responder) => {
      const status = await lastRun(replica, 'log_cleanup', 'failed');
      expect(status.last_run).toMatchObject({ attempts: 3, result: null, error: 'internal: disk full' });
      expect(status.failed_last_24h).toBe(1);
      expect(responder.of('log_cleanup')).toHaveLength(3);
      const permanent = logLines(replica.logs()).filter((l) => l.msg === 'tick failed permanently');
      expect(permanent).toHaveLength(1);
      expect(permanent[0]).toMatchObject({ level: 'error', schedule: 'log_cleanup', attempt: 3 });
      // The other schedules were unaffected: each runs on its own, so wait for its tick rather than
      // reading it at the moment the failing one gave up.
      await lastRun(replica, 'template_health', 'succeeded');
    });
  });

  it('does not retry a request the owning service refuses', async () => {
    const s = slice('refused');
    await withReplica(
      s,
      alwaysFails('credential_validation', 'validation_failed', 'rotation_minutes not supported'),
      async (replica, responder) => {
        const status = await lastRun(replica, 'credential_validation', 'failed');
        expect(status.last_run).toMatchObject({
          attempts: 1,
          error: 'validation_failed: rotation_minutes not supported',
        });
        expect(responder.of('credential_validation')).toHaveLength(1);
      },
    );
  });

  it('shows a tick waiting for its retry as retrying', async () => {
    // A long backoff holds the tick between its first and second attempt while we look.
    const s = slice('waiting', { JOBS_BACKOFF_MS: '600000' });
    await withReplica(
      s,
      alwaysFails('template_health', 'unavailable', 'installations is not running'),
      async (replica) => {
        const status = await lastRun(replica, 'template_health', 'retrying');
        expect(status.last_run).toMatchObject({
          attempts: 1,
          finished_at: null,
          duration_ms: null,
          error: 'unavailable: installations is not running',
        });
        expect(status.failed_last_24h).toBe(0);
      },
    );
  });

  it('treats a missing installations service as unavailable and retries', async () => {
    const s = slice('noresponders', { JOBS_BACKOFF_MS: '600000' });
    const replica = await startInProcessReplica(s);
    try {
      const status = await lastRun(replica, 'log_cleanup', 'retrying');
      expect(status.last_run?.error).toBe('unavailable: The service for this request is not running');
    } finally {
      await replica.stop();
    }
  });
});
