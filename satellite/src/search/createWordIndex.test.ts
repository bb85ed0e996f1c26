import { describe, expect, it } from 'vitest';
import { createWordIndex } from './createWordIndex.ts';

const bm25 = { k: 1.2, b: 0.7, d: 0.5 };

function scoresOf(index: ReturnType<typeof createWordIndex<'name' | 'text'>>, terms: Array<[string, number]>) {
  const scores = new Map<number, { score: number; weight: number }>();
  const best = index.score(
    terms.map(([term, weight]) => ({ term, weight })),
    (id, score, weight) => scores.set(id, { score, weight }),
  );
  return { scores, best };
}

describe('createWordIndex', () => {
  it('scores with field boosts and term weights, reporting the largest weight a document holds', () => {
    const index = createWordIndex(['name', 'text'] as const, { name: 3, text: 1 }, bm25);
    index.add(0, { name: ['read'], text: ['file', 'content'] });
    index.add(1, { name: ['write'], text: ['read', 'back'] });
    index.add(2, { name: ['other'], text: ['nothing'] });
    const { scores, best } = scoresOf(index, [['read', 1]]);
    expect([...scores.keys()].sort()).toEqual([0, 1]);
    expect(scores.get(0)?.score).toBeGreaterThan(scores.get(1)?.score as number);
    expect(best).toBe(scores.get(0)?.score);
    const mixed = scoresOf(index, [
      ['read', 0.5],
      ['file', 1],
    ]).scores;
    expect(mixed.get(0)?.weight).toBe(1);
    expect(mixed.get(1)?.weight).toBe(0.5);
  });

  it('gives equal documents equal scores after others were removed, and forgets removed terms', () => {
    const index = createWordIndex(['name', 'text'] as const, { name: 1, text: 1 }, bm25);
    for (let id = 0; id < 6; id++) index.add(id, { name: ['greet'], text: id % 2 ? ['hello', 'there'] : ['hi'] });
    for (const id of [1, 3, 5, 2]) index.remove(id);
    const { scores } = scoresOf(index, [['greet', 1]]);
    expect([...scores.keys()].sort()).toEqual([0, 4]);
    expect(scores.get(0)?.score).toBe(scores.get(4)?.score);
    expect(index.documentFrequency('hello')).toBe(0);
    expect(index.documentFrequency('greet')).toBe(2);
    // A fresh index of the two that are left scores them the same: no trace of the removed ones.
    const fresh = createWordIndex(['name', 'text'] as const, { name: 1, text: 1 }, bm25);
    fresh.add(0, { name: ['greet'], text: ['hi'] });
    fresh.add(4, { name: ['greet'], text: ['hi'] });
    expect(scoresOf(fresh, [['greet', 1]]).scores.get(0)?.score).toBeCloseTo(scores.get(0)?.score as number, 12);
  });

  it('expands a word to longer words it begins and to near spellings, weighted down', () => {
    const index = createWordIndex(['name', 'text'] as const, { name: 1, text: 1 }, bm25);
    index.add(0, { name: ['configur'], text: ['director'] });
    index.add(1, { name: ['config'], text: ['get'] });
    const longer = index.expand('config', { prefixWeight: 0.3, fuzzyWeight: 0, maxEdits: 0 });
    expect(longer.map((match) => match.term)).toEqual(['configur']);
    expect(longer[0]?.weight).toBeGreaterThan(0);
    expect(longer[0]?.weight).toBeLessThan(0.3);
    const near = index.expand('directr', { prefixWeight: 0, fuzzyWeight: 0.6, maxEdits: 1 });
    expect(near.map((match) => match.term)).toEqual(['director']);
    expect(index.expand('got', { prefixWeight: 0, fuzzyWeight: 0.6, maxEdits: 0 })).toEqual([]);
  });

  it('refuses the same id twice', () => {
    const index = createWordIndex(['name'] as const, { name: 1 }, bm25);
    index.add(0, { name: ['a'] });
    expect(() => index.add(0, { name: ['b'] })).toThrow(/already indexed/);
  });
});
