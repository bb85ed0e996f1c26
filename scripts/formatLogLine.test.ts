import { describe, expect, it } from 'vitest';
import { formatLogLine } from './formatLogLine.ts';

describe('formatLogLine', () => {
  const time = Date.parse('2026-05-01T12:34:56');

  it('turns a pino JSON line into time, process, level, message and the fields that matter', () => {
    const line = JSON.stringify({
      level: 30,
      time,
      pid: 42,
      hostname: 'box',
      name: 'gateway-api',
      msg: 'ready',
      port: 3000,
      err: { message: 'boom', stack: 'long' },
    });
    expect(formatLogLine('gateway-api', line, 12)).toBe('12:34:56  gateway-api   info   ready  port=3000  err=boom');
  });

  it("reads the services' ISO times and level names, and events without a message", () => {
    const line = JSON.stringify({
      level: 'info',
      time: '2026-05-01T10:00:00.000Z',
      event: 'token.created',
      scope: 'global',
    });
    const out = formatLogLine('registry', line, 8);
    expect(out).toMatch(/^\d\d:\d\d:\d\d {2}registry {2}info {3}event=token.created {2}scope=global$/);
  });

  it('quotes text with spaces, shortens long objects and passes anything else through', () => {
    const line = JSON.stringify({
      level: 40,
      time,
      msg: 'slow',
      reason: 'took a while',
      data: { list: 'x'.repeat(300) },
    });
    const out = formatLogLine('jobs', line, 4);
    expect(out).toContain('warn   slow  reason="took a while"  data={"list":"xxx');
    expect(out.length).toBeLessThan(260);
    expect(formatLogLine('jobs', 'node:internal/process stack', 4)).toBe('jobs  node:internal/process stack');
  });
});
