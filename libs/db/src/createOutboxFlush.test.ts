import { describe, expect, it } from 'vitest';
import { createOutboxFlush } from './createOutboxFlush.ts';

/** A pass that waits until released, counting how many began. */
function gatedPasses() {
  const releases: Array<() => void> = [];
  let begun = 0;
  return {
    pass: () => {
      begun += 1;
      return new Promise<void>((resolve) => releases.push(resolve));
    },
    begun: () => begun,
    releaseNext: async () => {
      while (releases.length === 0) await Promise.resolve();
      releases.shift()?.();
    },
  };
}

describe('createOutboxFlush', () => {
  it('answers every flush asked for during a pass with one more pass, never two at once', async () => {
    const gate = gatedPasses();
    const outbox = createOutboxFlush(gate.pass);
    const first = outbox.flush();
    const during = [outbox.flush(), outbox.flush(), outbox.flush()];
    expect(gate.begun()).toBe(1);
    await gate.releaseNext();
    await gate.releaseNext();
    await Promise.all([first, ...during]);
    expect(gate.begun()).toBe(2);
    // Idle again: the next flush is a pass of its own.
    const later = outbox.flush();
    await gate.releaseNext();
    await later;
    expect(gate.begun()).toBe(3);
  });

  it('lets the pass under way end on stop and starts no further one', async () => {
    const gate = gatedPasses();
    const outbox = createOutboxFlush(gate.pass);
    const flushed = outbox.flush();
    void outbox.flush();
    const stopped = outbox.stop();
    await gate.releaseNext();
    await Promise.all([flushed, stopped]);
    expect(gate.begun()).toBe(1);
  });

  it('starts no pass for a flush asked for once stopped', async () => {
    const gate = gatedPasses();
    const outbox = createOutboxFlush(gate.pass);
    await outbox.stop();
    await outbox.flush();
    expect(gate.begun()).toBe(0);
  });
});
