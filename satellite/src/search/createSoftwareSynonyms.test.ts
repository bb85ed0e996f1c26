import { describe, expect, it } from 'vitest';
import { createSoftwareSynonyms } from './createSoftwareSynonyms.ts';
import { sameThing } from './softwareVocabulary.ts';
import { termOf } from './termOf.ts';

describe('createSoftwareSynonyms', () => {
  it('relates every word of a group to the others by stem, at the weight given', () => {
    const synonyms = createSoftwareSynonyms(0.6, [
      ['folder', 'directory'],
      ['remove', 'delete'],
    ]);
    expect(synonyms(termOf('folders')).get(termOf('directory'))).toBe(0.6);
    expect(synonyms(termOf('deleting')).get(termOf('remove'))).toBe(0.6);
    expect(synonyms(termOf('folder')).has(termOf('folder'))).toBe(false);
    expect(synonyms('zzqx').size).toBe(0);
  });

  it('holds single lowercase words, in groups of at least two', () => {
    for (const group of sameThing) {
      expect(group.length, group.join(' ')).toBeGreaterThanOrEqual(2);
      for (const word of group) expect(word, group.join(' ')).toMatch(/^[a-z]+$/);
    }
  });
});
