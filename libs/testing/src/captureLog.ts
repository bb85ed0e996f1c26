import { Writable } from 'node:stream';

export type LogCapture = {
  /** Give it to a logger as its destination. */
  stream: Writable;
  /** Everything written, as written. */
  text(): string;
  /** The JSON lines written, parsed (anything else is passed over). */
  lines(): Array<Record<string, unknown>>;
};

/** Where a test's logger writes, so the test can read back what was logged (an event, never a secret). */
export function captureLog(): LogCapture {
  let text = '';
  const stream = new Writable({
    write(chunk, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  return {
    stream,
    text: () => text,
    lines: () =>
      text
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}
