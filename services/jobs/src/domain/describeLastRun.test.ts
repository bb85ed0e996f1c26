import { describe, expect, it } from 'vitest';
import { describeLastRun, type JobSnapshot } from './describeLastRun.ts';

const base = { attemptsMade: 1, attemptsStarted: 1, returnvalue: null } satisfies Partial<JobSnapshot>;
const t = (seconds: number) => Date.UTC(2025, 0, 1, 12, 0, seconds);

describe('describeLastRun', () => {
  it('is null before any run has an outcome', () => {
    expect(describeLastRun([])).toBeNull();
    expect(describeLastRun([{ ...base, state: 'delayed', attemptsMade: 0, attemptsStarted: 0 }])).toBeNull();
    expect(describeLastRun([{ ...base, state: 'active', processedOn: t(1) }])).toBeNull();
  });

  it('describes a success with its duration and result, not the reason of an earlier failed attempt', () => {
    const run = describeLastRun([
      {
        ...base,
        state: 'completed',
        processedOn: t(10),
        finishedOn: t(12),
        attemptsMade: 2,
        attemptsStarted: 2,
        returnvalue: { removed: 5 },
        failedReason: 'unavailable: busy',
      },
    ]);
    expect(run).toEqual({
      started_at: '2025-01-01T12:00:10.000Z',
      finished_at: '2025-01-01T12:00:12.000Z',
      duration_ms: 2000,
      outcome: 'succeeded',
      attempts: 2,
      result: { removed: 5 },
      error: null,
    });
  });

  it('picks the run that started last, and keeps showing it while the next tick runs its first attempt', () => {
    const run = describeLastRun([
      { ...base, state: 'completed', processedOn: t(1), finishedOn: t(2), returnvalue: { n: 1 } },
      { ...base, state: 'failed', processedOn: t(20), finishedOn: t(21), attemptsMade: 3, failedReason: 'internal: x' },
      { ...base, state: 'active', processedOn: t(40) },
      { ...base, state: 'delayed', attemptsMade: 0, attemptsStarted: 0 },
    ]);
    expect(run).toMatchObject({
      outcome: 'failed',
      attempts: 3,
      error: 'internal: x',
      result: null,
      duration_ms: 1000,
    });
  });

  it('calls a tick between attempts, or in a later attempt, retrying', () => {
    const waiting = describeLastRun([
      { ...base, state: 'delayed', processedOn: t(5), failedReason: 'unavailable: down' },
      { ...base, state: 'completed', processedOn: t(1), finishedOn: t(2) },
    ]);
    expect(waiting).toMatchObject({ outcome: 'retrying', attempts: 1, finished_at: null, duration_ms: null });
    const again = describeLastRun([{ ...base, state: 'active', processedOn: t(9), attemptsStarted: 2 }]);
    expect(again).toMatchObject({ outcome: 'retrying', attempts: 2 });
  });
});
