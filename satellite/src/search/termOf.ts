import { stemmer } from 'stemmer';

/** The index's form of a word: its Porter stem (`directories` and `directory` -> `directori`). */
export function termOf(word: string): string {
  return /^\p{L}+$/u.test(word) && word.length > 2 ? stemmer(word) : word;
}
