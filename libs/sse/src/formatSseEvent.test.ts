import { describe, expect, it } from 'vitest';
import { formatSseComment, formatSseEvent } from './formatSseEvent.ts';
import { createSseParser, type ReceivedSseEvent } from './parseSseStream.ts';

describe('SSE format', () => {
  it('writes id, event, data and retry, and a parser reads them back', () => {
    const received: ReceivedSseEvent[] = [];
    const parser = createSseParser((e) => received.push(e));
    const text =
      formatSseEvent({ retryMs: 3000 }) +
      formatSseEvent({ id: '7', event: 'snapshot', data: { a: 'line\nbreak' } }) +
      formatSseComment('keep-alive') +
      formatSseEvent({ id: '9' }) +
      formatSseEvent({ id: '10', event: 'update', data: [1, 2] });
    // Split anywhere: chunks from the network do not respect event boundaries.
    for (let i = 0; i < text.length; i += 5) parser.push(text.slice(i, i + 5));
    expect(received).toEqual([
      { id: '7', event: 'snapshot', data: '{"a":"line\\nbreak"}' },
      { id: '10', event: 'update', data: '[1,2]' },
    ]);
    expect(parser.retryMs()).toBe(3000);
    expect(parser.lastEventId()).toBe('10');
  });

  it('moves the last event id on an id-only event without dispatching it', () => {
    const received: ReceivedSseEvent[] = [];
    const parser = createSseParser((e) => received.push(e));
    parser.push(formatSseEvent({ id: '5', event: 'snapshot', data: {} }) + formatSseEvent({ id: '6' }));
    expect(received).toHaveLength(1);
    expect(parser.lastEventId()).toBe('6');
  });

  it('refuses a field value with a line break', () => {
    expect(() => formatSseEvent({ id: '1\n2' })).toThrow();
  });
});
