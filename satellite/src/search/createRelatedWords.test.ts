import { describe, expect, it } from 'vitest';
import { createRelatedWords } from './createRelatedWords.ts';
import { createWordNet } from './createWordNet.ts';

describe('createWordNet', () => {
  const wordNet = createWordNet();

  it('finds lemmas by base form and reads their senses, most frequent first', () => {
    expect(wordNet.lemmasOf('directories', 'noun')).toEqual(['directory']);
    expect(wordNet.lemmasOf('created', 'verb')).toContain('create');
    expect(wordNet.lemmasOf('zzqxjv', 'noun')).toEqual([]);
    const senses = wordNet.sensesOf('picture', 'noun');
    expect(senses[0]?.words).toEqual(expect.arrayContaining(['picture', 'image']));
  });

  it('finds every lemma of the first and last index lines (the halving search meets the file order)', () => {
    for (const word of ['a', 'zymurgy', 'file', 'folder', 'image']) {
      expect(wordNet.lemmasOf(word, 'noun'), word).toContain(word);
    }
  });
});

describe('createRelatedWords', () => {
  const related = createRelatedWords();

  it('relates words through synonyms, derivations and similar adjectives', () => {
    expect(related.of('make').get('create')).toBeGreaterThan(0);
    expect(related.of('picture').get('image')).toBeGreaterThan(0);
    expect(related.of('small').get('tiny')).toBeGreaterThan(0);
    expect(related.of('deletion').get('delete')).toBeGreaterThan(0);
    expect(related.of('numbers').get('number')).toBe(1);
  });

  it('weighs every related word below the word itself and leaves the word out', () => {
    for (const word of ['make', 'picture', 'show', 'file']) {
      const words = related.of(word);
      expect(words.has(word)).toBe(false);
      for (const [other, weight] of words) {
        expect(weight, other).toBeGreaterThan(0);
        expect(weight, other).toBeLessThanOrEqual(1);
        expect(other).not.toMatch(/[_\s-]/);
      }
    }
  });

  it('knows nothing for words WordNet lacks', () => {
    expect(related.of('zzqxjv').size).toBe(0);
    expect(related.of('the').size).toBe(0);
    expect(related.isVerb('make')).toBe(true);
    expect(related.isVerb('the')).toBe(false);
  });
});
