import Fuse, { type FuseIndex } from 'fuse.js';
import { hasApproximateMatch } from './hasApproximateMatch.ts';
import { type ExtendedTerm, isInverseTerm, parseExtendedQuery } from './parseExtendedQuery.ts';
import type { SearchableTool, SearchResult, ToolSearchIndex } from './searchableTool.ts';
import { toolSearchFuseOptions } from './toolSearchFuseOptions.ts';

/** Fuse's Bitap works on patterns of at most 32 code units; longer patterns are cut in chunks of 32. */
const bitapWordSize = 32;
const fieldCount = toolSearchFuseOptions.keys.length;

/** Fuse's record of one tool; its type is not exported under a name. */
type IndexRecord = FuseIndex<SearchableTool>['records'][number];
type FieldValue = { v: string; n: number };

/**
 * The fast discovery search. It returns exactly what the reference (`createFuseToolSearch`, plain
 * Fuse.js) returns: the same tools, order and scores, because the final scoring is Fuse's own, run on a
 * candidate subset that provably holds every tool Fuse would return.
 *
 * The candidates come from an inverted index of character bigrams over each field (lowercased as Fuse
 * lowercases it). Each term of the extended query bounds the fields it can match:
 * - a fuzzy term of length L may match with at most k errors, k the largest i < L with i / L <= 0.3
 *   (Fuse's threshold with `ignoreLocation`). A match within k edits keeps at least L - 1 - 2k of the
 *   pattern's bigrams (each edit breaks at most two), so a field needs that many of them, and then
 *   Myers' algorithm confirms a substring within k edits exists. A single character needs a doubled
 *   occurrence ("aa"): Fuse drops matches shorter than `minMatchCharLength` 2;
 * - exact, include, prefix and suffix terms need their text, found through one bigram's postings;
 * - inverse terms (`!`) bound nothing; a group made only of them falls back to the kept Fuse index.
 * All terms of an OR group must match in the same field, so their bounds intersect per field; groups
 * and fields unite. Candidates keep their list order, so Fuse's tie-break on list position is unchanged.
 */
export function createToolSearchIndex(): ToolSearchIndex {
  let state = buildState([]);
  return {
    setTools(tools) {
      if (isSameToolList(state, tools)) return;
      state = buildState(tools);
    },
    search(query, limit) {
      return searchState(state, query, limit);
    },
  };
}

type IndexState = {
  tools: readonly SearchableTool[];
  /** The searched fields as they were when indexed, to tell an unchanged list cheaply. */
  snapshot: string[];
  records: IndexRecord[];
  fuseIndex: FuseIndex<SearchableTool>;
  /** Plain Fuse over all tools, for blank queries and queries that cannot be bounded. */
  keptFuse: Fuse<SearchableTool>;
  /** Fuse re-pointed at each query's candidates. */
  subsetFuse: Fuse<SearchableTool>;
  /** Per field entry (tool index * fieldCount + key index): the text lowercased once, as extended
   * search compares it, and twice, as its fuzzy terms compare it; '' when Fuse holds no value. */
  lowerOnce: string[];
  lowerTwice: string[];
  /** Bigram (two UTF-16 code units) to the ascending field entries holding it in either form. */
  postings: Map<number, Int32Array>;
  counts: Uint8Array;
  toolMarks: Uint8Array;
};

function buildState(tools: readonly SearchableTool[]): IndexState {
  const fuseIndex = Fuse.createIndex<SearchableTool>([...toolSearchFuseOptions.keys], tools);
  const records = fuseIndex.records;
  const entryCount = tools.length * fieldCount;
  const lowerOnce = new Array<string>(entryCount).fill('');
  const lowerTwice = new Array<string>(entryCount).fill('');
  const lists = new Map<number, number[]>();
  for (const record of records) {
    for (let field = 0; field < fieldCount; field++) {
      const value = record.$?.[field] as FieldValue | undefined;
      if (!value) continue;
      const entry = record.i * fieldCount + field;
      const once = value.v.toLowerCase();
      const twice = once.toLowerCase();
      lowerOnce[entry] = once;
      lowerTwice[entry] = twice;
      addBigrams(lists, once, entry);
      if (twice !== once) addBigrams(lists, twice, entry);
    }
  }
  const postings = new Map<number, Int32Array>();
  for (const [gram, list] of lists) postings.set(gram, Int32Array.from(list));
  const snapshot: string[] = [];
  for (const tool of tools) snapshot.push(tool.name, tool.description, tool.server_slug);
  return {
    tools,
    snapshot,
    records,
    fuseIndex,
    keptFuse: new Fuse(tools, toolSearchFuseOptions, fuseIndex),
    subsetFuse: new Fuse<SearchableTool>([], toolSearchFuseOptions),
    lowerOnce,
    lowerTwice,
    postings,
    counts: new Uint8Array(entryCount),
    toolMarks: new Uint8Array(tools.length),
  };
}

function addBigrams(lists: Map<number, number[]>, text: string, entry: number): void {
  for (let i = 0; i + 1 < text.length; i++) {
    const gram = bigramAt(text, i);
    let list = lists.get(gram);
    if (!list) {
      list = [];
      lists.set(gram, list);
    }
    // Entries arrive in ascending order, so a repeat within one entry is always the last element.
    if (list[list.length - 1] !== entry) list.push(entry);
  }
}

function bigramAt(text: string, at: number): number {
  return text.charCodeAt(at) * 0x10000 + text.charCodeAt(at + 1);
}

function isSameToolList(state: IndexState, tools: readonly SearchableTool[]): boolean {
  if (state.tools.length !== tools.length) return false;
  const { snapshot } = state;
  for (let i = 0; i < tools.length; i++) {
    const tool = tools[i] as SearchableTool;
    if (tool !== state.tools[i]) return false;
    const at = i * fieldCount;
    if (tool.name !== snapshot[at] || tool.description !== snapshot[at + 1] || tool.server_slug !== snapshot[at + 2]) {
      return false;
    }
  }
  return true;
}

function searchState(state: IndexState, query: string, limit: number): SearchResult[] {
  // Fuse answers a blank query with the list itself; nothing to narrow.
  if (!query.trim()) return toResults(state.keptFuse.search(query, { limit }));
  const candidates = findCandidateTools(state, parseExtendedQuery(query.toLowerCase()));
  if (candidates === undefined) return toResults(state.keptFuse.search(query, { limit }));
  if (candidates.length === 0) return [];
  const subsetTools: SearchableTool[] = [];
  const subsetRecords: IndexRecord[] = [];
  for (const tool of candidates) {
    const record = state.records[tool] as IndexRecord;
    subsetRecords.push({ i: subsetTools.length, $: record.$ });
    subsetTools.push(state.tools[tool] as SearchableTool);
  }
  state.subsetFuse.setCollection(
    subsetTools,
    Fuse.parseIndex<SearchableTool>({ keys: state.fuseIndex.keys, records: subsetRecords }),
  );
  return toResults(state.subsetFuse.search(query, { limit }));
}

function toResults(results: ReadonlyArray<{ item: SearchableTool; score?: number }>): SearchResult[] {
  return results.map((result) => ({ tool: result.item, score: result.score ?? 1 }));
}

/** Ascending tool indices that may match, or undefined when some OR group cannot be bounded. */
function findCandidateTools(state: IndexState, groups: ExtendedTerm[][]): number[] | undefined {
  const { toolMarks } = state;
  const touched: number[] = [];
  for (const group of groups) {
    // A group without terms never matches in Fuse.
    if (group.length === 0) continue;
    let entries: ArrayLike<number> | undefined;
    for (const term of group) {
      if (isInverseTerm(term.type)) continue;
      const termEntries = findTermEntries(state, term);
      entries = entries === undefined ? termEntries : intersectSorted(entries, termEntries);
      if (entries.length === 0) break;
    }
    if (entries === undefined) {
      for (const tool of touched) toolMarks[tool] = 0;
      return undefined;
    }
    for (let i = 0; i < entries.length; i++) {
      const tool = Math.floor((entries[i] as number) / fieldCount);
      if (toolMarks[tool] === 0) {
        toolMarks[tool] = 1;
        touched.push(tool);
      }
    }
  }
  for (const tool of touched) toolMarks[tool] = 0;
  return touched.sort((a, b) => a - b);
}

function findTermEntries(state: IndexState, term: ExtendedTerm): ArrayLike<number> {
  switch (term.type) {
    case 'fuzzy':
      return findFuzzyEntries(state, term.pattern.toLowerCase());
    case 'exact':
      return findExactEntries(state, term.pattern, (text, pattern) => text === pattern);
    case 'include':
      return findExactEntries(state, term.pattern, (text, pattern) => text.includes(pattern));
    case 'prefix-exact':
      return findExactEntries(state, term.pattern, (text, pattern) => text.startsWith(pattern));
    case 'suffix-exact':
      return findExactEntries(state, term.pattern, (text, pattern) => text.endsWith(pattern));
    default:
      throw new Error(`inverse term ${term.type} has no bound`);
  }
}

/** Entries whose once-lowercased text passes `test`; Fuse's exact operators compare that text. */
function findExactEntries(
  state: IndexState,
  pattern: string,
  test: (text: string, pattern: string) => boolean,
): number[] {
  const { lowerOnce } = state;
  const found: number[] = [];
  if (pattern.length < 2) {
    for (let entry = 0; entry < lowerOnce.length; entry++) {
      if (test(lowerOnce[entry] as string, pattern)) found.push(entry);
    }
    return found;
  }
  // Any matching text contains the pattern, hence each of its bigrams: scan the rarest one's postings.
  let rarest: Int32Array | undefined;
  for (let i = 0; i + 1 < pattern.length; i++) {
    const list = state.postings.get(bigramAt(pattern, i));
    if (!list) return found;
    if (!rarest || list.length < rarest.length) rarest = list;
  }
  for (const entry of rarest as Int32Array) {
    if (test(lowerOnce[entry] as string, pattern)) found.push(entry);
  }
  return found;
}

/** Entries a fuzzy term may match: the union over the Bitap chunks Fuse cuts the pattern into. */
function findFuzzyEntries(state: IndexState, pattern: string): ArrayLike<number> {
  if (pattern.length <= bitapWordSize) return findChunkEntries(state, pattern);
  const chunks: string[] = [];
  const remainder = pattern.length % bitapWordSize;
  for (let start = 0; start < pattern.length - remainder; start += bitapWordSize) {
    chunks.push(pattern.substring(start, start + bitapWordSize));
  }
  if (remainder) chunks.push(pattern.substring(pattern.length - bitapWordSize));
  let entries: ArrayLike<number> = [];
  for (const chunk of chunks) entries = uniteSorted(entries, findChunkEntries(state, chunk));
  return entries;
}

function findChunkEntries(state: IndexState, chunk: string): ArrayLike<number> {
  const length = chunk.length;
  if (length === 1) return state.postings.get(bigramAt(chunk + chunk, 0)) ?? [];
  const maxErrors = fuzzyErrorBudget(length);
  const required = length - 1 - 2 * maxErrors;
  const multiplicity = new Map<number, number>();
  for (let i = 0; i + 1 < length; i++) {
    const gram = bigramAt(chunk, i);
    multiplicity.set(gram, (multiplicity.get(gram) ?? 0) + 1);
  }
  const { counts, lowerTwice } = state;
  const touched: number[] = [];
  for (const [gram, times] of multiplicity) {
    const list = state.postings.get(gram);
    if (!list) continue;
    for (const entry of list) {
      if (counts[entry] === 0) touched.push(entry);
      counts[entry] = (counts[entry] as number) + times;
    }
  }
  const found: number[] = [];
  for (const entry of touched) {
    if ((counts[entry] as number) >= required && hasApproximateMatch(chunk, lowerTwice[entry] as string, maxErrors)) {
      found.push(entry);
    }
    counts[entry] = 0;
  }
  return found.sort((a, b) => a - b);
}

/**
 * The most errors Fuse's Bitap can accept for a pattern of `length` units at threshold 0.3 with
 * `ignoreLocation` (score = errors / length): it tries rows 0 to length - 1 while errors / length
 * stays at or under the threshold, computed in the same floating point.
 */
export function fuzzyErrorBudget(length: number): number {
  let errors = 0;
  while (errors + 1 < length && (errors + 1) / length <= toolSearchFuseOptions.threshold) errors++;
  return errors;
}

function intersectSorted(left: ArrayLike<number>, right: ArrayLike<number>): number[] {
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length && j < right.length) {
    const a = left[i] as number;
    const b = right[j] as number;
    if (a === b) {
      out.push(a);
      i++;
      j++;
    } else if (a < b) i++;
    else j++;
  }
  return out;
}

function uniteSorted(left: ArrayLike<number>, right: ArrayLike<number>): number[] {
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    const a = i < left.length ? (left[i] as number) : Number.POSITIVE_INFINITY;
    const b = j < right.length ? (right[j] as number) : Number.POSITIVE_INFINITY;
    if (a <= b) {
      out.push(a);
      i++;
      if (a === b) j++;
    } else {
      out.push(b);
      j++;
    }
  }
  return out;
}
