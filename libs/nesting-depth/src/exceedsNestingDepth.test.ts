import { describe, expect, it } from 'vitest';
import { exceedsNestingDepth, maxNestingDepth } from './exceedsNestingDepth.ts';

/** `levels` containers, each holding the next, alternating arrays and objects. */
function nested(levels: number): unknown {
  let value: unknown = 'leaf';
  for (let level = 0; level < levels; level++) value = level % 2 === 0 ? [value] : { inner: value };
  return value;
}

describe('exceedsNestingDepth', () => {
  it('counts each array or object as one level, scalars as none', () => {
    expect(exceedsNestingDepth('text', 0)).toBe(false);
    expect(exceedsNestingDepth(null, 0)).toBe(false);
    expect(exceedsNestingDepth([], 0)).toBe(true);
    expect(exceedsNestingDepth([], 1)).toBe(false);
    expect(exceedsNestingDepth([[1]], 1)).toBe(true);
    expect(exceedsNestingDepth([[1]], 2)).toBe(false);
    expect(exceedsNestingDepth({ a: { b: [] } }, 2)).toBe(true);
    expect(exceedsNestingDepth({ a: { b: [] } }, 3)).toBe(false);
  });

  it('accepts exactly the limit and refuses one level more, wherever the deep branch is', () => {
    expect(exceedsNestingDepth(nested(maxNestingDepth))).toBe(false);
    expect(exceedsNestingDepth(nested(maxNestingDepth + 1))).toBe(true);
    const wide = { first: nested(3), many: Array.from({ length: 1000 }, () => ({ x: 1 })), last: nested(10) };
    expect(exceedsNestingDepth(wide, 11)).toBe(false);
    expect(exceedsNestingDepth(wide, 10)).toBe(true);
  });

  it('answers for a value far deeper than the call stack allows, as JSON.parse builds it', () => {
    const depth = 200_000;
    const value: unknown = JSON.parse('['.repeat(depth) + ']'.repeat(depth));
    expect(() => JSON.stringify(value)).toThrow(RangeError);
    expect(exceedsNestingDepth(value)).toBe(true);
    expect(exceedsNestingDepth(value, depth)).toBe(false);
  });
});
