import { Writable } from 'node:stream';
import { createLogger } from '@orbital/logger';
import type { FastifyBaseLogger } from 'fastify';
import { describe, expect, it } from 'vitest';
import { lazyChildLogger } from './lazyChildLogger.ts';

function capture(level: 'info' | 'debug') {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      callback();
    },
  });
  const logger = createLogger({ name: 'lazy-test', level, destination }) as unknown as FastifyBaseLogger;
  let children = 0;
  const counting = Object.create(logger, {
    child: {
      value: (...args: Parameters<FastifyBaseLogger['child']>) => {
        children += 1;
        return logger.child(...args);
      },
    },
  }) as FastifyBaseLogger;
  return { lines, logger: counting, children: () => children };
}

describe('a request logger made on first use', () => {
  it('makes no child for lines below the level, and writes the others with the request id', () => {
    const { lines, logger, children } = capture('info');
    const log = lazyChildLogger(logger, { request_id: 'r-1' }, {});
    log.debug({ route: '/x' }, 'request answered');
    log.trace('nothing');
    expect(children()).toBe(0);
    expect(lines).toEqual([]);
    log.warn({ reason: 'refused' }, 'satellite authentication refused');
    log.error(new Error('boom'));
    expect(children()).toBe(1);
    expect(lines.map((l) => [l.level, l.request_id, l.msg])).toEqual([
      ['warn', 'r-1', 'satellite authentication refused'],
      ['error', 'r-1', 'boom'],
    ]);
  });

  it('follows the logger it came from, gives children its bindings and takes a level of its own', () => {
    const { lines, logger } = capture('debug');
    const log = lazyChildLogger(logger, { request_id: 'r-2' }, {});
    expect(log.level).toBe('debug');
    log.child({ step: 'poll' }).debug('from a child');
    log.level = 'error';
    log.warn('dropped');
    expect(lines.map((l) => [l.request_id, l.step, l.msg])).toEqual([['r-2', 'poll', 'from a child']]);
    // A route's own level or serializers: the child is made at once, as Fastify makes it.
    const routed = lazyChildLogger(logger, { request_id: 'r-3' }, { level: 'warn' });
    expect(routed.level).toBe('warn');
  });
});
