import { describe, expect, it } from 'vitest';
import { relistDelayOf } from './relistDelayOf.ts';

describe('relistDelayOf', () => {
  it('waits between half and one and a half intervals', () => {
    expect(relistDelayOf(60000, () => 0)).toBe(30000);
    expect(relistDelayOf(60000, () => 0.5)).toBe(60000);
    expect(relistDelayOf(60000, () => 0.999999)).toBeLessThan(90000);
  });

  it('spreads a hundred servers started together over the interval instead of listing them at once', () => {
    const delays = Array.from({ length: 100 }, () => relistDelayOf(60000));
    // Ten-second buckets of the 60 s window the first re-lists fall in: none holds most of them.
    const buckets = new Map<number, number>();
    for (const delay of delays)
      buckets.set(Math.floor(delay / 10000), (buckets.get(Math.floor(delay / 10000)) ?? 0) + 1);
    expect(buckets.size).toBeGreaterThanOrEqual(4);
    expect(Math.max(...buckets.values())).toBeLessThan(50);
  });
});
