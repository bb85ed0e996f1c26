import type { IFuseOptions } from 'fuse.js';
import type { SearchableTool } from './searchableTool.ts';

/**
 * The Fuse.js options of discovery. They are part of its contract: operator queries answer with the tools,
 * order and scores plain Fuse.js gives with exactly these, so none may change.
 * `ignoreLocation` makes the search full text: a word anywhere in a description matches with the same
 * score as at its start. Both the reference search and the fast index read this one constant, so they
 * cannot drift apart.
 */
export const toolSearchFuseOptions = {
  keys: [
    { name: 'name', weight: 0.4 },
    { name: 'description', weight: 0.35 },
    { name: 'server_slug', weight: 0.25 },
  ],
  threshold: 0.3,
  minMatchCharLength: 2,
  useExtendedSearch: true,
  ignoreLocation: true,
  includeScore: true,
  shouldSort: true,
} as const satisfies IFuseOptions<SearchableTool>;
