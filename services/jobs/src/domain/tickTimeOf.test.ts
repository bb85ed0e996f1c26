import { describe, expect, it } from 'vitest';
import { tickTimeOf } from './tickTimeOf.ts';

describe('tickTimeOf', () => {
  it("reads the scheduled time from the scheduler's job id, whatever the record's creation time", () => {
    const tick = tickTimeOf({ id: 'repeat:log_cleanup:1735732800000', timestamp: 1735732799123 }, 'log_cleanup');
    expect(tick.toISOString()).toBe('2025-01-01T12:00:00.000Z');
  });

  it('falls back to the creation time for a job that no scheduler made', () => {
    expect(tickTimeOf({ id: '17', timestamp: 1735732800000 }, 'log_cleanup').toISOString()).toBe(
      '2025-01-01T12:00:00.000Z',
    );
    expect(tickTimeOf({ id: 'repeat:template_health:1735732800000', timestamp: 5 }, 'log_cleanup').getTime()).toBe(5);
    expect(tickTimeOf({ id: 'repeat:log_cleanup:abc', timestamp: 5 }, 'log_cleanup').getTime()).toBe(5);
  });
});
