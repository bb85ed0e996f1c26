import { describe, expect, it } from 'vitest';
import { createEditDistanceMeter } from './createEditDistanceMeter.ts';
import { createRandom } from './testing/createRandom.ts';

/** The textbook dynamic programme: least edits from `pattern` to any substring of `text`. */
function naiveDistance(pattern: string, text: string): number {
  let previous = new Array<number>(text.length + 1).fill(0);
  for (let i = 1; i <= pattern.length; i++) {
    const current = [i];
    for (let j = 1; j <= text.length; j++) {
      const substitution = (previous[j - 1] as number) + (pattern[i - 1] === text[j - 1] ? 0 : 1);
      current.push(Math.min(substitution, (previous[j] as number) + 1, (current[j - 1] as number) + 1));
    }
    previous = current;
  }
  return Math.min(...previous);
}

const alphabets = ['ab', 'abcd', 'abcdefghij -', 'aé日🚀'];

/** A pattern of 1 to 32 units and a text of up to `maxText` over one small alphabet, so near matches abound. */
function randomPair(random: ReturnType<typeof createRandom>, maxText: number): { pattern: string; text: string } {
  const alphabet = [...random.pick(alphabets)];
  const patternLength = 1 + random.int(32);
  let pattern = '';
  while (pattern.length < patternLength) pattern += random.pick(alphabet);
  pattern = pattern.slice(0, 32);
  let text = '';
  for (let i = random.int(maxText); i > 0; i--) text += random.pick(alphabet);
  return { pattern, text };
}

describe('createEditDistanceMeter', () => {
  it('measures the closest substring', () => {
    expect(createEditDistanceMeter('file').distance('read the profile')).toBe(0);
    expect(createEditDistanceMeter('flie').distance('read a file')).toBe(2);
    expect(createEditDistanceMeter('issue').distance('create an isue')).toBe(1);
    expect(createEditDistanceMeter('abc').distance('')).toBe(3);
    expect(createEditDistanceMeter('日本語').distance('日本の語')).toBe(1);
  });

  it('agrees with the textbook dynamic programme on random strings, up to 32 units', () => {
    const random = createRandom(11);
    for (let round = 0; round < 3000; round++) {
      const { pattern, text } = randomPair(random, 60);
      expect(createEditDistanceMeter(pattern).distance(text), `${pattern} in ${text}`).toBe(
        naiveDistance(pattern, text),
      );
    }
  });

  it('measures up to a budget exactly, and says only "more" beyond it, looking around pieces of the pattern', () => {
    expect(createEditDistanceMeter('read').distanceUpTo('already here', 1)).toBe(0);
    expect(createEditDistanceMeter('read').distanceUpTo('we rad it', 1)).toBe(1);
    expect(createEditDistanceMeter('read').distanceUpTo('write it', 1)).toBe(2);
    expect(createEditDistanceMeter('directory').distanceUpTo('a dirctory tree', 2)).toBe(1);
    const random = createRandom(12);
    for (let round = 0; round < 3000; round++) {
      const { pattern, text } = randomPair(random, 80);
      const budget = random.int(pattern.length);
      expect(createEditDistanceMeter(pattern).distanceUpTo(text, budget), `${pattern} in ${text} up to ${budget}`).toBe(
        Math.min(naiveDistance(pattern, text), budget + 1),
      );
    }
  });

  it('refuses patterns Bitap could not hold', () => {
    expect(() => createEditDistanceMeter('')).toThrow(RangeError);
    expect(() => createEditDistanceMeter('x'.repeat(33))).toThrow(RangeError);
  });
});
