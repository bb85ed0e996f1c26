import { describe, expect, it } from 'vitest';
import { choosePollingMode } from './choosePollingMode.ts';

const now = new Date('2026-01-01T12:00:00Z');
const minutesAgo = (m: number) => new Date(now.getTime() - m * 60000);
const base = { active: true, delivered: [], stillPending: false, lastCommandAt: minutesAgo(1), now };

describe('choosePollingMode', () => {
  it('asks for an immediate return when work was left behind or an immediate command came', () => {
    expect(choosePollingMode({ ...base, stillPending: true })).toEqual({ mode: 'immediate', next_poll_ms: 2000 });
    expect(choosePollingMode({ ...base, delivered: ['low', 'immediate'] }).mode).toBe('immediate');
  });

  it('polls at the high rate after a high-priority command', () => {
    expect(choosePollingMode({ ...base, delivered: ['high', 'normal'] })).toEqual({
      mode: 'high',
      next_poll_ms: 10000,
    });
  });

  it('polls normally after ordinary commands, recent activity, or while inactive', () => {
    expect(choosePollingMode({ ...base, delivered: ['low'] }).mode).toBe('normal');
    expect(choosePollingMode(base)).toEqual({ mode: 'normal', next_poll_ms: 30000 });
    expect(choosePollingMode({ ...base, active: false, lastCommandAt: null }).mode).toBe('normal');
  });

  it('slows down after ten quiet minutes or when nothing was ever queued', () => {
    expect(choosePollingMode({ ...base, lastCommandAt: minutesAgo(10) })).toEqual({
      mode: 'slow',
      next_poll_ms: 60000,
    });
    expect(choosePollingMode({ ...base, lastCommandAt: null }).mode).toBe('slow');
    expect(choosePollingMode({ ...base, lastCommandAt: minutesAgo(9) }).mode).toBe('normal');
  });
});
