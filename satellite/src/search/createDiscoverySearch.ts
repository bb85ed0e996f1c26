import { createPlainToolSearch, defaultPlainRankingParameters } from './createPlainToolSearch.ts';
import { type RelatedWords, sharedRelatedWords } from './createRelatedWords.ts';
import { createToolSearchIndex } from './createToolSearchIndex.ts';
import { isOperatorQuery } from './isOperatorQuery.ts';
import type { ToolSearchIndex } from './searchableTool.ts';

/**
 * Discovery's search: a query in Fuse.js extended-search syntax (`isOperatorQuery`), or a blank one,
 * gets exactly what plain Fuse.js with discovery's options returns (the fast index `createToolSearchIndex`);
 * plain words get the word-based ranking (`createPlainToolSearch`). When the ranking finds nothing
 * (no word of the query is in any tool, even misspelt), Fuse's fuzzy matching has the last word, so a
 * fragment such as `fil` still finds what it can.
 */
export function createDiscoverySearch(relatedWords: RelatedWords = sharedRelatedWords()): ToolSearchIndex {
  const fuse = createToolSearchIndex();
  const plain = createPlainToolSearch(defaultPlainRankingParameters, relatedWords);
  // WordNet's index is read on the first look-up; doing it now, off the request path, spares the
  // first agent's query that wait.
  setTimeout(() => relatedWords.of('start'), 0).unref();
  return {
    setTools(tools) {
      fuse.setTools(tools);
      plain.setTools(tools);
    },
    search(query, limit) {
      if (!query.trim() || isOperatorQuery(query)) return fuse.search(query, limit);
      const ranked = plain.search(query, limit);
      return ranked.length > 0 ? ranked : fuse.search(query, limit);
    },
  };
}
