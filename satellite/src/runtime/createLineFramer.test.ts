import { describe, expect, it } from 'vitest';
import { createLineFramer, type OversizedLine } from './createLineFramer.ts';

function framer(maxLineBytes: number, prefix?: RegExp) {
  const lines: string[] = [];
  const refused: OversizedLine[] = [];
  const f = createLineFramer({
    maxLineBytes,
    onLine: (pieces) => lines.push(Buffer.concat(pieces).toString('utf8')),
    onOversized: (o) => refused.push(o),
    ...(prefix ? { prefix } : {}),
  });
  return { f, lines, refused };
}

/** Feeds text in chunks of `size` bytes, as a pipe would. */
function feed(f: ReturnType<typeof createLineFramer>, text: string, size: number) {
  const bytes = Buffer.from(text, 'utf8');
  for (let i = 0; i < bytes.length; i += size) f.push(bytes.subarray(i, i + size));
}

describe('createLineFramer', () => {
  it('splits lines across and within chunks, multi-byte characters cut anywhere, touching nothing else', () => {
    const { f, lines } = framer(1024);
    const messages = ['{"a":"héllo wörld ✓"}', '{"b":2}', '{"c":"日本語"}'];
    feed(f, `${messages.join('\n')}\n`, 3);
    expect(lines).toEqual(messages);
    feed(f, '{"d":1}\r\n\n', 100);
    expect(lines.slice(-2)).toEqual(['{"d":1}\r', '']);
    expect(f.pendingBytes()).toBe(0);
  });

  it('passes a line of exactly the limit and refuses one byte more, then reads the next line', () => {
    const { f, lines, refused } = framer(64);
    const exact = `{"result":{"t":"${'x'.repeat(64 - 30)}"},"jsonrpc":"2.0","id":1}`.slice(0, 64);
    feed(f, `${exact}\n`, 7);
    expect(lines).toEqual([exact]);
    const over = `{"result":{"t":"${'y'.repeat(200)}"},"jsonrpc":"2.0","id":42}`;
    feed(f, `${over}\n{"jsonrpc":"2.0","id":43,"result":{}}\n`, 5);
    expect(refused).toEqual([{ bytes: Buffer.byteLength(over), id: 42, kind: 'response' }]);
    expect(lines.at(-1)).toBe('{"jsonrpc":"2.0","id":43,"result":{}}');
  });

  it('recovers the id from the start or the end, never from inside the result', () => {
    const { f, refused } = framer(32);
    feed(f, `{"jsonrpc":"2.0","id":"abc","result":{"x":"${'z'.repeat(500)}"}}\n`, 50);
    feed(f, `{"result":{"nested":{"id":99}},"pad":"${'z'.repeat(500)}","jsonrpc":"2.0","id":7}\n`, 50);
    feed(f, `{"result":{"pad":"${'z'.repeat(500)}","inner":{"id":5}}}\n`, 50);
    feed(f, `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"${'z'.repeat(500)}"}}\n`, 50);
    feed(f, `{"jsonrpc":"2.0","id":9,"method":"sampling/createMessage","params":{"x":"${'z'.repeat(500)}"}}\n`, 50);
    feed(f, `Debug: ${'z'.repeat(500)}\n`, 50);
    expect(refused.map((r) => [r.id, r.kind])).toEqual([
      ['abc', 'response'],
      [7, 'response'],
      [undefined, 'response'],
      [undefined, 'server_message'],
      [9, 'server_message'],
      [undefined, 'other'],
    ]);
  });

  it('reads the id of a server-sent event behind its field name', () => {
    const { f, lines, refused } = framer(64, /^data: ?/);
    const data = `data: {"jsonrpc":"2.0","id":12,"result":{"t":"${'q'.repeat(300)}"}}`;
    feed(f, `event: message\n${data}\n\n`, 40);
    expect(lines).toEqual(['event: message', '']);
    expect(refused).toEqual([{ bytes: data.length, id: 12, kind: 'response' }]);
  });

  it('keeps no more than the limit while a huge line streams past', () => {
    const { f, refused } = framer(1000);
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    const start = '{"jsonrpc":"2.0","id":3,"result":"';
    f.push(Buffer.from(start));
    for (let i = 0; i < 100; i++) f.push(chunk);
    expect(f.pendingBytes()).toBeGreaterThan(6_000_000);
    f.push(Buffer.from('"}\n'));
    expect(refused[0]?.id).toBe(3);
    expect(refused[0]?.bytes).toBe(start.length + 100 * chunk.length + 2);
  });
});
