import { sameThing } from './softwareVocabulary.ts';
import { termOf } from './termOf.ts';

/** The terms (stems) a term is read as by the software vocabulary, each with the group weight. */
export type SoftwareSynonyms = (term: string) => ReadonlyMap<string, number>;

/**
 * The software vocabulary (`softwareVocabulary.ts`) as a look-up by stem: every word of a group is read
 * as every other word of it, at `weight`. Built once; a stem in several groups relates to all of them.
 */
export function createSoftwareSynonyms(
  weight: number,
  groups: ReadonlyArray<readonly string[]> = sameThing,
): SoftwareSynonyms {
  const related = new Map<string, Map<string, number>>();
  for (const group of groups) {
    const terms = [...new Set(group.map(termOf))];
    for (const term of terms) {
      let others = related.get(term);
      if (!others) {
        others = new Map();
        related.set(term, others);
      }
      for (const other of terms) if (other !== term) others.set(other, weight);
    }
  }
  const none: ReadonlyMap<string, number> = new Map();
  return (term) => related.get(term) ?? none;
}
