import { createRequire } from 'node:module';
import { sameThing } from '../../satellite/src/search/softwareVocabulary.ts';
import { splitIntoWords } from '../../satellite/src/search/splitIntoWords.ts';
import { termOf } from '../../satellite/src/search/termOf.ts';

/** The same English stop word list the word ranking reads (the `stopword` package's). */
const stopwords: ReadonlySet<string> = new Set((createRequire(import.meta.url)('stopword') as { eng: string[] }).eng);

/** How many of the vocabulary's words join each content word in the third phrasing. */
const synonymsPerWord = 2;

/**
 * The `queries[]` an agent following discovery's advice might send, made from a request by a fixed
 * rule, never by hand, so no phrasing is written with the answer in mind:
 *
 * 1. the request as written;
 * 2. its content words only (the request's words less the stop words, in order);
 * 3. its content words, each followed by the first two other words of the first group of the general
 *    software vocabulary that holds it (compared by stem), as "synonyms of the key words".
 */
export function threePhrasings(request: string): [string, string, string] {
  const content = splitIntoWords(request).filter((word) => !stopwords.has(word));
  const withSynonyms = content.flatMap((word) => {
    const stem = termOf(word);
    const group = sameThing.find((words) => words.some((candidate) => termOf(candidate) === stem));
    const others = (group ?? []).filter((candidate) => termOf(candidate) !== stem).slice(0, synonymsPerWord);
    return [word, ...others];
  });
  return [request, content.join(' ') || request, withSynonyms.join(' ') || request];
}
