import { createRequire } from 'node:module';
import MiniSearch, { type Query } from 'minisearch';
import { stemmer } from 'stemmer';
import {
  createRelatedWords,
  defaultRelationWeights,
  type RelatedWords,
  type RelationWeights,
} from './createRelatedWords.ts';
import type { SearchableTool, ToolSearchIndex } from './searchableTool.ts';
import { splitIntoWords } from './splitIntoWords.ts';
import { type ToolSearchFields, toolSearchFieldNames, toolSearchFields } from './toolSearchFields.ts';

/** The knobs of plain-word ranking; the defaults are the measured choice (see satellite/README.md). */
export type PlainRankingParameters = {
  /** BM25 field boosts: a word in the tool's name says more than one in its schema. */
  fieldBoosts: Record<keyof ToolSearchFields, number>;
  /** BM25+ parameters (minisearch's defaults are k 1.2, b 0.7, d 0.5). */
  bm25: { k: number; b: number; d: number };
  related: RelationWeights;
  /** A tool's score is multiplied by (query words it matches / query words) to this power. */
  coverageExponent: number;
  /** Weight of a typo match at distance 1; minisearch lowers it with the distance. */
  fuzzyWeight: number;
  /** Weight of a word that begins a longer indexed word (`config` -> `configuration`). */
  prefixWeight: number;
  /** Words shorter than this get no prefix matches. */
  minPrefixLength: number;
  /** What to do with the query's stop words: keep them, drop them, or drop them unless verbs. */
  stopwords: 'keep' | 'drop' | 'dropUnlessVerb';
  /** Whether a word matched only through a related word or a typo counts as that variant's weight. */
  partialCoverage: boolean;
};

export const defaultPlainRankingParameters: PlainRankingParameters = {
  fieldBoosts: { name: 3, description: 1, server: 1.5, schema: 0.5 },
  bm25: { k: 1.2, b: 0.7, d: 0.5 },
  related: defaultRelationWeights,
  coverageExponent: 2,
  fuzzyWeight: 0.6,
  prefixWeight: 0.3,
  minPrefixLength: 4,
  stopwords: 'dropUnlessVerb',
  partialCoverage: true,
};

/** The most distinct words of one query that are ranked; the rest are ignored. */
const maxQueryWords = 32;

/** English stop words from the `stopword` package (a common list of 108 function words). */
const stopwords: ReadonlySet<string> = new Set((createRequire(import.meta.url)('stopword') as { eng: string[] }).eng);

/** The index's form of a word: its Porter stem (`directories` and `directory` -> `directori`). */
export function termOf(word: string): string {
  return /^\p{L}+$/u.test(word) && word.length > 2 ? stemmer(word) : word;
}

type Variant = { term: string; weight: number; fuzzy: number; prefix: boolean };

/**
 * Plain-word discovery: BM25 (minisearch) over each tool's name split into words, its description, its
 * server and its input schema, with stems, WordNet's related words and typo-tolerant matching. Each
 * query word is scored on its own (the word, its related words, its near spellings), then the words'
 * scores are summed and scaled by the share of query words the tool matches, so a tool that answers the
 * whole request outranks one that repeats a single word.
 *
 * The score it reports is `1 - score / attainable`, in [0, 1], lower is closer: `attainable` sums,
 * over the query words, the best score any tool gets for that word. A tool that matches every word as
 * well as the best tool for that word scores 0; one that matches nothing would score 1.
 */
export function createPlainToolSearch(
  parameters: PlainRankingParameters = defaultPlainRankingParameters,
  relatedWords: RelatedWords = createRelatedWords(parameters.related),
): ToolSearchIndex {
  const index = new MiniSearch<{ id: number; fields: ToolSearchFields }>({
    fields: [...toolSearchFieldNames],
    extractField: (document, field) =>
      field === 'id' ? document.id : document.fields[field as keyof ToolSearchFields],
    tokenize: splitIntoWords,
    processTerm: termOf,
    searchOptions: {
      boost: parameters.fieldBoosts,
      bm25: parameters.bm25,
      weights: { fuzzy: parameters.fuzzyWeight, prefix: parameters.prefixWeight },
      tokenize: (text) => [text],
      processTerm: (term) => term,
    },
  });
  /**
   * Indexed documents by the text they were built from, so a tool list rebuilt with new objects (the
   * tool cache makes new ones whenever any server changes) costs only the tools whose text changed.
   */
  let documents = new Map<string, number>();
  const fingerprints = new WeakMap<SearchableTool, string>();
  let source: readonly SearchableTool[] | undefined;
  /** The current list's tool and list position (for ties) of each document id. */
  let toolOf = new Map<number, { tool: SearchableTool; position: number }>();
  let nextId = 0;
  /** How many indexed tools hold each term, to tell a word no tool has (a likely typo). */
  const vocabulary = new Map<string, number>();
  const termsById = new Map<number, Set<string>>();
  /**
   * Each document's fields, to remove it outright: minisearch's cheaper `discard` leaves a tool's
   * postings behind until a later clean-up, and counts them out only as a search meets them, so two
   * equal tools could score differently in between.
   */
  const fieldsById = new Map<number, ToolSearchFields>();

  const fingerprintOf = (tool: SearchableTool): string => {
    let text = fingerprints.get(tool);
    if (text === undefined) {
      const fields = toolSearchFields(tool);
      text = [tool.tool_path, fields.name, fields.description, fields.server, fields.schema].join('\u0000');
      fingerprints.set(tool, text);
    }
    return text;
  };

  const addDocument = (tool: SearchableTool): number => {
    const id = nextId++;
    const fields = toolSearchFields(tool);
    index.add({ id, fields });
    fieldsById.set(id, fields);
    const terms = new Set(toolSearchFieldNames.flatMap((field) => splitIntoWords(fields[field]).map(termOf)));
    termsById.set(id, terms);
    for (const term of terms) vocabulary.set(term, (vocabulary.get(term) ?? 0) + 1);
    return id;
  };

  const removeDocument = (id: number): void => {
    const fields = fieldsById.get(id);
    if (fields) index.remove({ id, fields });
    fieldsById.delete(id);
    for (const term of termsById.get(id) ?? []) {
      const count = (vocabulary.get(term) ?? 1) - 1;
      if (count > 0) vocabulary.set(term, count);
      else vocabulary.delete(term);
    }
    termsById.delete(id);
  };

  return {
    setTools(next) {
      if (next === source) return;
      source = next;
      const current = new Map<string, number>();
      const nextToolOf = new Map<number, { tool: SearchableTool; position: number }>();
      next.forEach((tool, position) => {
        const text = fingerprintOf(tool);
        if (current.has(text)) return;
        const id = documents.get(text) ?? addDocument(tool);
        current.set(text, id);
        nextToolOf.set(id, { tool, position });
      });
      for (const [text, id] of documents) if (!current.has(text)) removeDocument(id);
      documents = current;
      toolOf = nextToolOf;
    },
    search(query, limit) {
      const words = [...new Set(splitIntoWords(query))]
        .filter(
          (word) =>
            !stopwords.has(word) ||
            parameters.stopwords === 'keep' ||
            (parameters.stopwords === 'dropUnlessVerb' && relatedWords.isVerb(word)),
        )
        // A pasted paragraph must not cost seconds: its first words carry the request.
        .slice(0, maxQueryWords);
      if (words.length === 0 || toolOf.size === 0) return [];
      // Per document id: summed word scores and matched share; arrays, since common words touch
      // thousands of tools at 10,000 and maps were the cost.
      const total = new Float64Array(nextId);
      const matched = new Float64Array(nextId);
      const touched: number[] = [];
      let attainable = 0;
      for (const word of words) {
        const [own, ...related] = variantsOf(word);
        // A word no tool holds may be a typo: only then are near spellings of it searched.
        if (!vocabulary.has(own.term)) own.fuzzy = fuzzyDistance(own.term);
        const variants = [own, ...related];
        const weightOf = new Map(variants.map((variant) => [variant.term, variant.weight]));
        let best = 0;
        for (const result of index.search(queryOf(variants))) {
          const id = result.id as number;
          // minisearch multiplies by the number of variants matched; the sum of their scores is wanted.
          const score = result.score / Math.max(1, result.queryTerms.length);
          let weight = 0;
          for (const term of result.queryTerms) weight = Math.max(weight, weightOf.get(term) ?? 0);
          // A near spelling or a longer word counts as its discounted weight, like a related word.
          if (result.queryTerms.length === 1 && !result.terms.includes(result.queryTerms[0] as string)) {
            weight *= parameters.fuzzyWeight;
          }
          if (total[id] === 0 && matched[id] === 0) touched.push(id);
          total[id] = (total[id] as number) + score;
          matched[id] = (matched[id] as number) + (parameters.partialCoverage ? weight : 1);
          if (score > best) best = score;
        }
        attainable += best;
      }
      if (attainable === 0) return [];
      const ranked: Array<{ tool: SearchableTool; score: number; position: number }> = [];
      for (const id of touched) {
        const entry = toolOf.get(id);
        if (!entry) continue;
        const coverage = ((matched[id] as number) / words.length) ** parameters.coverageExponent;
        ranked.push({ tool: entry.tool, score: (total[id] as number) * coverage, position: entry.position });
      }
      ranked.sort((a, b) => b.score - a.score || a.position - b.position);
      return ranked.slice(0, Math.max(0, limit)).map((entry) => ({
        tool: entry.tool,
        score: Math.min(1, Math.max(0, 1 - entry.score / attainable)),
      }));
    },
  };

  /** One query word's variants (the word, its related words, its near spellings) as one OR query. */
  function queryOf(variants: Variant[]): Query {
    return {
      combineWith: 'OR',
      queries: variants.map((variant) => ({
        queries: [variant.term],
        boostTerm: () => variant.weight,
        fuzzy: variant.fuzzy,
        prefix: variant.prefix,
      })),
    };
  }

  function variantsOf(word: string): [Variant, ...Variant[]] {
    const own = termOf(word);
    const variants: [Variant, ...Variant[]] = [
      {
        term: own,
        weight: 1,
        fuzzy: 0,
        prefix: /^\p{L}+$/u.test(word) && word.length >= parameters.minPrefixLength,
      },
    ];
    const seen = new Set([own]);
    for (const [related, weight] of relatedWords.of(word)) {
      const term = termOf(related);
      // A related word no tool holds can match nothing; leaving it out saves a look-up per word.
      if (seen.has(term) || !vocabulary.has(term)) continue;
      seen.add(term);
      variants.push({ term, weight, fuzzy: 0, prefix: false });
    }
    return variants;
  }
}

/** Typos tolerated: one edit from 4 letters on, two from 8 (`creat` finds `create`, `git` no `get`). */
function fuzzyDistance(term: string): number {
  if (!/^\p{L}+$/u.test(term)) return 0;
  if (term.length >= 8) return 2;
  return term.length >= 4 ? 1 : 0;
}
