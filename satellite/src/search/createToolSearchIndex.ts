import Fuse, { type FuseIndex, type FuseResult } from 'fuse.js';
import { createEditDistanceMeter, type EditDistanceMeter } from './createEditDistanceMeter.ts';
import { fuzzyErrorBudget } from './fuzzyErrorBudget.ts';
import { type ExtendedTerm, isInverseTerm, parseExtendedQuery } from './parseExtendedQuery.ts';
import type { SearchableTool, SearchResult, ToolSearchIndex } from './searchableTool.ts';
import { toolSearchFuseOptions } from './toolSearchFuseOptions.ts';

/** Fuse's Bitap works on patterns of at most 32 code units; longer patterns are cut in chunks of 32. */
const bitapWordSize = 32;
/** Fuse's floor for a fuzzy score: a perfect fuzzy hit scores 0.001, only whole-text equality 0. */
const fuzzyScoreFloor = 0.001;
const fieldCount = toolSearchFuseOptions.keys.length;
/** Fuse divides each key weight by their sum, in key order. */
const fieldWeights = (() => {
  const total = toolSearchFuseOptions.keys.reduce((sum, key) => sum + key.weight, 0);
  return toolSearchFuseOptions.keys.map((key) => key.weight / total);
})();
/** Lower bounds are computed in a different order than Fuse's scores; this keeps them below. */
const boundMargin = 1 - 1e-9;

/** Fuse's record of one tool; its type is not exported under a name. */
type IndexRecord = FuseIndex<SearchableTool>['records'][number];
type FieldValue = { v: string; n: number };

/**
 * The fast discovery search. It returns exactly what the reference (`createFuseToolSearch`, plain
 * Fuse.js) returns — the same tools, order and scores — because the final scoring is Fuse's own, run on
 * a subset of tools that provably holds Fuse's top results. Two steps make the subset small:
 *
 * 1. Bounding which fields can match. Each term of the extended query bounds the field texts it can
 *    match, found through an inverted index of character bigrams (texts lowercased as Fuse lowercases
 *    them, identical texts stored once):
 *    - a fuzzy term chunk of length L matches with at most k errors (`fuzzyErrorBudget`). A substring
 *      within k edits keeps at least L - 1 - 2k of the chunk's bigrams (an edit breaks at most two), so
 *      a text needs that many; Myers' algorithm then measures the closest substring, looking only
 *      around exact occurrences of the chunk's k + 1 pieces (`distanceUpTo`); it must be within k. A
 *      single character needs a doubled occurrence ("aa"): Fuse drops matches shorter than
 *      `minMatchCharLength` 2;
 *    - exact, include, prefix and suffix terms need their text, found through one bigram's postings;
 *    - inverse terms (`!`) bound nothing beside other terms; a group made only of them matches every
 *      text that lacks all their patterns, found by testing each distinct text once.
 *    All terms of an OR group must match in the same field, so their bounds intersect per field.
 * 2. Ranking by a lower bound of Fuse's score. A fuzzy term scores at least max(0.001, d / L), d the
 *    distance Myers measured; other terms at least 0. A field scores the mean of its group's terms, a
 *    tool the product of `score ^ (weight * norm)` over its matched fields. Fuse scores the candidates
 *    in ascending bound order, in growing batches, until the bound of the next one exceeds the
 *    `limit`-th best exact score: no tool left out can enter the top results.
 * Batches keep the tools' list order, so Fuse's tie-break on list position is unchanged.
 */
export type ToolSearchIndexOptions = {
  /**
   * How many candidates Fuse scores first, at least (`limit` times 4 when larger); each further batch
   * is four times larger. Tests set 1 so the stopping rule decides almost every search.
   */
  firstBatchSize?: number;
};

export function createToolSearchIndex({ firstBatchSize = 32 }: ToolSearchIndexOptions = {}): ToolSearchIndex {
  // Kept across tool lists, so a change costs in proportion to what changed: Fuse records of tools
  // already seen are reused, and texts already indexed keep their postings.
  const recordCache = new WeakMap<SearchableTool, CachedRecord>();
  let texts = createTextTable();
  let state = buildState([], texts, recordCache);
  return {
    setTools(tools) {
      if (isSameToolList(state, tools)) return;
      state = buildState(tools, texts, recordCache);
      // Texts no list uses any more stay in the table; start afresh once they outnumber the live ones.
      if (texts.lowerOnce.length > 2 * state.liveTexts + 1024) {
        texts = createTextTable();
        state = buildState(tools, texts, recordCache);
      }
    },
    search(query, limit) {
      return searchState(state, query, limit, firstBatchSize);
    },
  };
}

/** Fuse's key objects for the discovery keys, as its index records them. */
const indexKeys = Fuse.createIndex<SearchableTool>([...toolSearchFuseOptions.keys], []).keys;

type CachedRecord = { name: string; description: string; server_slug: string; fields: IndexRecord['$'] };

/** Distinct field texts, numbered in order of arrival, with the bigram postings over them. */
type TextTable = {
  ids: Map<string, number>;
  /** Lowercased once (as extended search compares texts) and twice (as its fuzzy terms do). */
  lowerOnce: string[];
  lowerTwice: string[];
  /** Bigram (two UTF-16 code units) to the ascending texts holding it in either form. */
  postings: Map<number, number[]>;
};

function createTextTable(): TextTable {
  return { ids: new Map(), lowerOnce: [], lowerTwice: [], postings: new Map() };
}

function internText(table: TextTable, once: string): number {
  let textId = table.ids.get(once);
  if (textId === undefined) {
    textId = table.lowerOnce.length;
    table.ids.set(once, textId);
    const twice = once.toLowerCase();
    table.lowerOnce.push(once);
    table.lowerTwice.push(twice);
    addBigrams(table.postings, once, textId);
    if (twice !== once) addBigrams(table.postings, twice, textId);
  }
  return textId;
}

type IndexState = {
  tools: readonly SearchableTool[];
  /** The searched fields as they were when indexed, to tell an unchanged list cheaply. */
  snapshot: string[];
  records: IndexRecord[];
  /** Plain Fuse over all tools, for blank queries and queries that cannot be bounded. */
  keptFuse: Fuse<SearchableTool>;
  /** Fuse re-pointed at each batch of candidates. */
  subsetFuse: Fuse<SearchableTool>;
  texts: TextTable;
  /** Field entry (tool index * fieldCount + key index) to its text, -1 when Fuse holds none. */
  entryText: Int32Array;
  /** Field entry to its score exponent in Fuse: normalised key weight times the field norm. */
  entryExponent: Float64Array;
  /** Text to the ascending field entries of this list holding it (none for texts of past lists). */
  textEntries: number[][];
  liveTexts: number;
  gramCounts: Uint8Array;
  /** Scratch of one search: per field entry its bound (infinity when unmarked), per tool (-1 when unmarked). */
  entryBound: Float64Array;
  toolBound: Float64Array;
};

function buildState(
  tools: readonly SearchableTool[],
  texts: TextTable,
  recordCache: WeakMap<SearchableTool, CachedRecord>,
): IndexState {
  const unseen = tools.filter((tool) => {
    const cached = recordCache.get(tool);
    return (
      !cached ||
      cached.name !== tool.name ||
      cached.description !== tool.description ||
      cached.server_slug !== tool.server_slug
    );
  });
  if (unseen.length > 0) {
    const fresh = Fuse.createIndex<SearchableTool>([...toolSearchFuseOptions.keys], unseen).records;
    unseen.forEach((tool, i) => {
      const { name, description, server_slug } = tool;
      recordCache.set(tool, { name, description, server_slug, fields: fresh[i]?.$ });
    });
  }
  const records: IndexRecord[] = tools.map((tool, i) => ({ i, $: recordCache.get(tool)?.fields }));
  const entryCount = tools.length * fieldCount;
  const entryText = new Int32Array(entryCount).fill(-1);
  const entryExponent = new Float64Array(entryCount);
  for (const record of records) {
    for (let field = 0; field < fieldCount; field++) {
      const value = record.$?.[field] as FieldValue | undefined;
      if (!value) continue;
      const entry = record.i * fieldCount + field;
      entryText[entry] = internText(texts, value.v.toLowerCase());
      entryExponent[entry] = (fieldWeights[field] as number) * value.n;
    }
  }
  const textEntries = Array.from({ length: texts.lowerOnce.length }, (): number[] => []);
  let liveTexts = 0;
  for (let entry = 0; entry < entryCount; entry++) {
    const list = textEntries[entryText[entry] as number];
    if (!list) continue;
    if (list.length === 0) liveTexts++;
    list.push(entry);
  }
  const snapshot: string[] = [];
  for (const tool of tools) snapshot.push(tool.name, tool.description, tool.server_slug);
  const fuseIndex = Fuse.parseIndex<SearchableTool>({ keys: indexKeys, records });
  return {
    tools,
    snapshot,
    records,
    keptFuse: new Fuse(tools, toolSearchFuseOptions, fuseIndex),
    subsetFuse: new Fuse<SearchableTool>([], toolSearchFuseOptions),
    texts,
    entryText,
    entryExponent,
    textEntries,
    liveTexts,
    gramCounts: new Uint8Array(texts.lowerOnce.length),
    entryBound: new Float64Array(entryCount).fill(Number.POSITIVE_INFINITY),
    toolBound: new Float64Array(tools.length).fill(-1),
  };
}

function addBigrams(lists: Map<number, number[]>, text: string, textId: number): void {
  for (let i = 0; i + 1 < text.length; i++) {
    const gram = bigramAt(text, i);
    let list = lists.get(gram);
    if (!list) {
      list = [];
      lists.set(gram, list);
    }
    // Texts arrive in ascending order, so a repeat within one text is always the last element.
    if (list[list.length - 1] !== textId) list.push(textId);
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

function searchState(state: IndexState, query: string, limit: number, firstBatchSize: number): SearchResult[] {
  // Fuse answers a blank query with the list itself; nothing to narrow.
  if (!query.trim()) return toResults(state.keptFuse.search(query, { limit }));
  const candidates = findCandidates(state, parseExtendedQuery(query.toLowerCase()));
  return toResults(scoreCandidates(state, query, limit, candidates, firstBatchSize));
}

function toResults(results: ReadonlyArray<FuseResult<SearchableTool>>): SearchResult[] {
  return results.map((result) => ({ tool: result.item, score: result.score ?? 1 }));
}

/** Candidate tools in ascending list order, with a lower bound of each one's Fuse score. */
type Candidates = { tools: Int32Array; bounds: Float64Array };

/**
 * Fuse on the candidates with the best bounds, in batches growing until the rest cannot place. A batch
 * is every candidate whose bound is at most the batch-th smallest (a selection, not a sort: at 10,000
 * candidates sorting was most of a query's time), so ties at the cut all go in.
 */
function scoreCandidates(
  state: IndexState,
  query: string,
  limit: number,
  candidates: Candidates,
  firstBatchSize: number,
): ReadonlyArray<FuseResult<SearchableTool>> {
  const { tools, bounds } = candidates;
  const count = tools.length;
  if (count === 0) return [];
  // Only a positive whole limit lets Fuse keep a top list; any other limit scores every candidate.
  const bounded = Number.isInteger(limit) && limit > 0;
  let batch = bounded ? Math.max(4 * limit, firstBatchSize) : count;
  for (;;) {
    if (batch >= count) return runFuseOn(state, query, limit, tools);
    const cut = smallest(bounds, batch);
    const chosen: number[] = [];
    let next = Number.POSITIVE_INFINITY;
    for (let i = 0; i < count; i++) {
      const bound = bounds[i] as number;
      if (bound <= cut) chosen.push(tools[i] as number);
      else if (bound < next) next = bound;
    }
    const results = runFuseOn(state, query, limit, chosen);
    if (chosen.length === count) return results;
    const worst = results[limit - 1]?.score;
    if (worst !== undefined && next * boundMargin > worst) return results;
    batch *= 4;
  }
}

/** The k-th smallest of `values` (1-based), by quickselect on a copy. */
function smallest(values: Float64Array, k: number): number {
  const a = Float64Array.from(values);
  let low = 0;
  let high = a.length - 1;
  const target = k - 1;
  while (low < high) {
    const pivot = a[(low + high) >> 1] as number;
    let i = low;
    let j = high;
    while (i <= j) {
      while ((a[i] as number) < pivot) i++;
      while ((a[j] as number) > pivot) j--;
      if (i <= j) {
        const swap = a[i] as number;
        a[i] = a[j] as number;
        a[j] = swap;
        i++;
        j--;
      }
    }
    if (target <= j) high = j;
    else if (target >= i) low = i;
    else break;
  }
  return a[target] as number;
}

function runFuseOn(
  state: IndexState,
  query: string,
  limit: number,
  toolIndices: readonly number[] | Int32Array,
): ReadonlyArray<FuseResult<SearchableTool>> {
  const subsetTools: SearchableTool[] = [];
  const subsetRecords: IndexRecord[] = [];
  for (const tool of toolIndices) {
    const record = state.records[tool] as IndexRecord;
    subsetRecords.push({ i: subsetTools.length, $: record.$ });
    subsetTools.push(state.tools[tool] as SearchableTool);
  }
  state.subsetFuse.setCollection(
    subsetTools,
    Fuse.parseIndex<SearchableTool>({ keys: indexKeys, records: subsetRecords }),
  );
  return state.subsetFuse.search(query, { limit });
}

/**
 * The tools that may match, with a lower bound of each one's score. Field entries and tools are
 * marked in the index's scratch arrays (reset however the search ends), not in maps: at 10,000 tools a
 * query that most fields match would otherwise spend its time hashing.
 */
function findCandidates(state: IndexState, groups: ExtendedTerm[][]): Candidates {
  // Field entry to the least lower bound of its score over the groups it may match.
  const { entryBound, toolBound } = state;
  const touchedEntries: number[] = [];
  const boundEntry = (entry: number, bound: number): void => {
    const known = entryBound[entry] as number;
    if (known === Number.POSITIVE_INFINITY) touchedEntries.push(entry);
    if (bound < known) entryBound[entry] = bound;
  };
  try {
    return collectCandidates(state, groups, boundEntry, touchedEntries);
  } finally {
    // The scratch arrays serve the next search: left marked by a failure, they would corrupt it.
    for (const entry of touchedEntries) {
      entryBound[entry] = Number.POSITIVE_INFINITY;
      toolBound[(entry / fieldCount) | 0] = -1;
    }
  }
}

function collectCandidates(
  state: IndexState,
  groups: ExtendedTerm[][],
  boundEntry: (entry: number, bound: number) => void,
  touchedEntries: number[],
): Candidates {
  const { entryBound, toolBound } = state;
  for (const group of groups) {
    // A group without terms never matches in Fuse.
    if (group.length === 0) continue;
    const terms = group.filter((term) => !isInverseTerm(term.type)).map((term) => prepareTerm(state, term));
    if (terms.length === 0) {
      boundInverseGroup(state, group, boundEntry);
      continue;
    }
    terms.sort((a, b) => a.cost - b.cost);
    const [first, ...rest] = terms as [PreparedTerm, ...PreparedTerm[]];
    let entries: number[] = [];
    let sums: number[] = [];
    first.forEachText((textId, bound) => {
      for (const entry of state.textEntries[textId] as number[]) {
        entries.push(entry);
        sums.push(bound);
      }
    });
    for (const term of rest) {
      const keptEntries: number[] = [];
      const keptSums: number[] = [];
      for (let i = 0; i < entries.length; i++) {
        const entry = entries[i] as number;
        const bound = term.boundFor(state.entryText[entry] as number);
        if (bound === undefined) continue;
        keptEntries.push(entry);
        keptSums.push((sums[i] as number) + bound);
      }
      entries = keptEntries;
      sums = keptSums;
      if (entries.length === 0) break;
    }
    // Fuse averages over every term of the group; inverse terms score 0 when they hold.
    for (let i = 0; i < entries.length; i++) boundEntry(entries[i] as number, (sums[i] as number) / group.length);
  }
  const touchedTools: number[] = [];
  for (const entry of touchedEntries) {
    const tool = (entry / fieldCount) | 0;
    // Fuse turns a 0 into Number.EPSILON before raising it; every other score is at least 0.001.
    const factor = Math.max(entryBound[entry] as number, Number.EPSILON) ** (state.entryExponent[entry] as number);
    const known = toolBound[tool] as number;
    if (known < 0) {
      touchedTools.push(tool);
      toolBound[tool] = factor;
    } else toolBound[tool] = known * factor;
  }
  const tools = Int32Array.from(touchedTools).sort();
  const bounds = new Float64Array(tools.length);
  for (let i = 0; i < tools.length; i++) bounds[i] = toolBound[tools[i] as number] as number;
  return { tools, bounds };
}

/**
 * A group of inverse terms only matches every field text that holds none of its patterns, each term
 * scoring 0: the bound is exact, found by testing every live text (cheaper than Fuse over every tool,
 * which the bound then spares).
 */
function boundInverseGroup(
  state: IndexState,
  group: ExtendedTerm[],
  boundEntry: (entry: number, bound: number) => void,
): void {
  const { lowerOnce } = state.texts;
  const tests = group.map((term) => inverseTest(term));
  for (let textId = 0; textId < state.textEntries.length; textId++) {
    const entries = state.textEntries[textId] as number[];
    if (entries.length === 0) continue;
    const text = lowerOnce[textId] as string;
    if (!tests.every((holds) => holds(text))) continue;
    for (const entry of entries) boundEntry(entry, 0);
  }
}

/** Fuse's inverse operators on a once-lowercased text: true when the term holds (the text lacks the pattern). */
function inverseTest({ type, pattern }: ExtendedTerm): (text: string) => boolean {
  switch (type) {
    case 'inverse-exact':
      return (text) => !text.includes(pattern);
    case 'inverse-prefix-exact':
      return (text) => !text.startsWith(pattern);
    case 'inverse-suffix-exact':
      return (text) => !text.endsWith(pattern);
    default:
      throw new Error(`${type} is not an inverse term`);
  }
}

type PreparedTerm = {
  /** A rough cost of `forEachText`, to start each group with its most selective term. */
  cost: number;
  /** Distinct texts the term may match, with a lower bound of its score on each. */
  forEachText(visit: (textId: number, bound: number) => void): void;
  /** The lower bound of its score on one text, or undefined when it cannot match it. */
  boundFor(textId: number): number | undefined;
};

function prepareTerm(state: IndexState, term: ExtendedTerm): PreparedTerm {
  switch (term.type) {
    case 'fuzzy':
      return prepareFuzzyTerm(state, term.pattern.toLowerCase());
    case 'exact':
      return prepareExactTerm(state, term.pattern, (text, pattern) => text === pattern);
    case 'include':
      return prepareExactTerm(state, term.pattern, (text, pattern) => text.includes(pattern));
    case 'prefix-exact':
      return prepareExactTerm(state, term.pattern, (text, pattern) => text.startsWith(pattern));
    case 'suffix-exact':
      return prepareExactTerm(state, term.pattern, (text, pattern) => text.endsWith(pattern));
    default:
      throw new Error(`inverse term ${term.type} bounds nothing`);
  }
}

/** Exact operators compare the once-lowercased text and score 0 when they hold. */
function prepareExactTerm(
  state: IndexState,
  pattern: string,
  test: (text: string, pattern: string) => boolean,
): PreparedTerm {
  const { lowerOnce } = state.texts;
  // Any text passing `test` contains the pattern, hence each of its bigrams: the rarest one's postings.
  let rarest: number[] | undefined;
  if (pattern.length >= 2) {
    rarest = state.texts.postings.get(bigramAt(pattern, 0)) ?? [];
    for (let i = 1; i + 1 < pattern.length; i++) {
      const list = state.texts.postings.get(bigramAt(pattern, i)) ?? [];
      if (list.length < rarest.length) rarest = list;
    }
  }
  return {
    cost: rarest ? rarest.length : lowerOnce.length,
    forEachText(visit) {
      if (rarest) {
        for (const textId of rarest) if (test(lowerOnce[textId] as string, pattern)) visit(textId, 0);
      } else {
        for (let textId = 0; textId < lowerOnce.length; textId++) {
          if (test(lowerOnce[textId] as string, pattern)) visit(textId, 0);
        }
      }
    },
    boundFor(textId) {
      return test(lowerOnce[textId] as string, pattern) ? 0 : undefined;
    },
  };
}

type Chunk = {
  text: string;
  maxErrors: number;
  /** Bigram to how many times the chunk holds it. */
  grams: Map<number, number>;
  /** Bigrams a text needs, counted with multiplicity, to be within `maxErrors` edits. */
  required: number;
  meter: EditDistanceMeter;
};

function prepareFuzzyTerm(state: IndexState, pattern: string): PreparedTerm {
  const chunks = cutIntoChunks(pattern).map((text): Chunk => {
    const maxErrors = fuzzyErrorBudget(text.length);
    const grams = new Map<number, number>();
    // A single character matches only where it is doubled: the doubled bigram is required.
    if (text.length === 1) grams.set(bigramAt(text + text, 0), 1);
    for (let i = 0; i + 1 < text.length; i++) {
      const gram = bigramAt(text, i);
      grams.set(gram, (grams.get(gram) ?? 0) + 1);
    }
    const required = text.length === 1 ? 1 : text.length - 1 - 2 * maxErrors;
    return { text, maxErrors, grams, required, meter: createEditDistanceMeter(text) };
  });
  const { gramCounts } = state;
  const { lowerTwice, postings } = state.texts;
  // Each text's bound, measured at most once per search: NaN not yet measured, -1 no match. A typed
  // array, since a short pattern passes the bigram filter on most texts.
  const measured = new Float64Array(lowerTwice.length).fill(Number.NaN);
  const boundFor = (textId: number): number | undefined => {
    const known = measured[textId] as number;
    if (!Number.isNaN(known)) return known < 0 ? undefined : known;
    const text = lowerTwice[textId] as string;
    let bound: number | undefined;
    // Fuse scores a text equal to the whole pattern 0, before any Bitap.
    if (text === pattern) bound = 0;
    else {
      let matches = false;
      let sum = 0;
      for (const chunk of chunks) {
        const distance = chunk.meter.distanceUpTo(text, chunk.maxErrors);
        if (chunk.text.length === 1 ? text.includes(chunk.text + chunk.text) : distance <= chunk.maxErrors) {
          matches = true;
        }
        sum += Math.max(fuzzyScoreFloor, distance / chunk.text.length);
      }
      bound = matches ? sum / chunks.length : undefined;
    }
    measured[textId] = bound ?? -1;
    return bound;
  };
  let cost = 0;
  for (const chunk of chunks) for (const gram of chunk.grams.keys()) cost += postings.get(gram)?.length ?? 0;
  return {
    cost,
    boundFor,
    forEachText(visit) {
      // A text is visited once, though several chunks of a long pattern may pass it.
      const visited = chunks.length > 1 ? new Set<number>() : undefined;
      for (const chunk of chunks) {
        const touched: number[] = [];
        for (const [gram, times] of chunk.grams) {
          const list = postings.get(gram);
          if (!list) continue;
          for (const textId of list) {
            if (gramCounts[textId] === 0) touched.push(textId);
            gramCounts[textId] = (gramCounts[textId] as number) + times;
          }
        }
        // The counts are cleared before anything else runs, so nothing can leave them for the next search.
        const passed: number[] = [];
        for (const textId of touched) {
          if ((gramCounts[textId] as number) >= chunk.required) passed.push(textId);
          gramCounts[textId] = 0;
        }
        for (const textId of passed) {
          if (visited?.has(textId)) continue;
          visited?.add(textId);
          const bound = boundFor(textId);
          if (bound !== undefined) visit(textId, bound);
        }
      }
    },
  };
}

/** Fuse's cut of a long pattern: whole chunks of 32 from the start, then the last 32 units if any remain. */
function cutIntoChunks(pattern: string): string[] {
  if (pattern.length <= bitapWordSize) return [pattern];
  const chunks: string[] = [];
  const remainder = pattern.length % bitapWordSize;
  for (let start = 0; start < pattern.length - remainder; start += bitapWordSize) {
    chunks.push(pattern.substring(start, start + bitapWordSize));
  }
  if (remainder) chunks.push(pattern.substring(pattern.length - bitapWordSize));
  return chunks;
}
