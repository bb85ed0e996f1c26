import { createRequire } from 'node:module';
import {
  createRelatedWords,
  defaultRelationWeights,
  type RelatedWords,
  type RelationWeights,
} from './createRelatedWords.ts';
import { createSoftwareSynonyms } from './createSoftwareSynonyms.ts';
import { createWordIndex, type TermMatch, type WordIndex } from './createWordIndex.ts';
import type { SearchableTool, ToolSearchIndex } from './searchableTool.ts';
import { splitIntoWords } from './splitIntoWords.ts';
import { termOf } from './termOf.ts';
import {
  serverNamesOf,
  splitFirstSentence,
  type ToolSearchFields,
  toolSearchFieldNames,
  toolSearchFields,
} from './toolSearchFields.ts';

export { termOf } from './termOf.ts';

/** The knobs of plain-word ranking; the defaults are the measured choice (see satellite/README.md). */
export type PlainRankingParameters = {
  /** BM25 field boosts: a word in the tool's name says more than one in its schema. */
  fieldBoosts: Record<keyof ToolSearchFields, number>;
  /** BM25+ parameters: saturation k, length normalisation b, and the floor d of every match. */
  bm25: { k: number; b: number; d: number };
  related: RelationWeights;
  /** Weight of a word the software vocabulary reads as the query's word (`folder` -> `directory`). */
  vocabularyWeight: number;
  /**
   * How much the server a request is about lifts its tools: a tool's score is multiplied by
   * `1 + serverLift * share`, where `share` in [0, 1] is its server's score relative to the best server's.
   */
  serverLift: number;
  /**
   * BM25 field boosts of a server's own text: its names, its catalogue description, and its tools' names
   * and first sentences.
   */
  serverBoosts: { names: number; about: number; tools: number };
  /** A tool's score is multiplied by (query words it matches / query words) to this power. */
  coverageExponent: number;
  /** Weight of a typo match; lowered with the number of edits (`length / (length + edits)`). */
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
  fieldBoosts: { name: 3, summary: 2, details: 0.5, schema: 0.5, server: 1.5, serverAbout: 0.5 },
  bm25: { k: 1.2, b: 0.7, d: 0.5 },
  related: defaultRelationWeights,
  vocabularyWeight: 0.6,
  serverLift: 0.5,
  serverBoosts: { names: 2, about: 1, tools: 1 },
  coverageExponent: 1.5,
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

/** A query word's own term, then the terms related to it, each with its weight. */
type WordQuery = { own: string; fuzzy: number; prefix: boolean; related: TermMatch[] };

/** Per document id: summed word scores and matched share of the query, and which ids were touched. */
type WordScores = { total: Float64Array; matched: Float64Array; touched: number[]; attainable: number };

/**
 * Plain-word discovery: BM25+ over each tool's name split into words, the first sentence of its
 * description and the rest, its input schema and its server, with stems, a vocabulary of software
 * words, WordNet's related words and typo-tolerant matching. Each query word is scored on its own (the
 * word, its related words, its near spellings), then the words' scores are summed and scaled by the
 * share of query words the tool matches, so a tool that answers the whole request outranks one that
 * repeats a single word. The same words also rank the servers (each read as its names and its tools'
 * names and first sentences), and a tool of the server the request is about is lifted.
 *
 * The score it reports is `1 - score / attainable`, in [0, 1], lower is closer: `attainable` sums,
 * over the query words, the best score any tool gets for that word, times the largest lift. A tool
 * that matches every word as well as the best tool for that word, on the best server, scores 0; one
 * that matches nothing would score 1.
 */
export function createPlainToolSearch(
  parameters: PlainRankingParameters = defaultPlainRankingParameters,
  relatedWords: RelatedWords = createRelatedWords(parameters.related),
): ToolSearchIndex {
  const softwareSynonyms = createSoftwareSynonyms(parameters.vocabularyWeight);
  const index = createWordIndex(toolSearchFieldNames, parameters.fieldBoosts, parameters.bm25);
  const servers = createServerIndex();
  /**
   * Indexed documents by the text they were built from, so a tool list rebuilt with new objects (the
   * tool cache makes new ones whenever any server changes) costs only the tools whose text changed.
   */
  let documents = new Map<string, number>();
  const fingerprints = new WeakMap<SearchableTool, string>();
  let source: readonly SearchableTool[] | undefined;
  /** The current list's tool, list position (for ties) and server document of each document id. */
  let toolOf = new Map<number, { tool: SearchableTool; position: number; server: number }>();
  let nextId = 0;

  const fingerprintOf = (tool: SearchableTool): string => {
    let text = fingerprints.get(tool);
    if (text === undefined) {
      const fields = toolSearchFields(tool);
      text = [tool.tool_path, ...toolSearchFieldNames.map((field) => fields[field])].join('\u0000');
      fingerprints.set(tool, text);
    }
    return text;
  };

  const addDocument = (tool: SearchableTool): number => {
    const id = nextId++;
    index.add(id, termsOfFields(toolSearchFields(tool)));
    return id;
  };

  return {
    setTools(next) {
      if (next === source) return;
      source = next;
      const current = new Map<string, number>();
      const nextToolOf = new Map<number, { tool: SearchableTool; position: number; server: number }>();
      const serverIds = servers.setTools(next);
      next.forEach((tool, position) => {
        const text = fingerprintOf(tool);
        if (current.has(text)) return;
        const id = documents.get(text) ?? addDocument(tool);
        current.set(text, id);
        nextToolOf.set(id, { tool, position, server: serverIds[position] as number });
      });
      for (const [text, id] of documents) if (!current.has(text)) index.remove(id);
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
      const queries = words.map(wordQueryOf);
      const scores = scoreWords(index, queries);
      if (scores.attainable === 0) return [];
      const serverShare = parameters.serverLift > 0 ? servers.shares(queries) : undefined;
      const ranked: Array<{ tool: SearchableTool; score: number; position: number }> = [];
      for (const id of scores.touched) {
        const entry = toolOf.get(id);
        if (!entry) continue;
        const coverage = ((scores.matched[id] as number) / words.length) ** parameters.coverageExponent;
        const lift = 1 + parameters.serverLift * (serverShare?.[entry.server] ?? 0);
        ranked.push({
          tool: entry.tool,
          score: (scores.total[id] as number) * coverage * lift,
          position: entry.position,
        });
      }
      const attainable = scores.attainable * (1 + parameters.serverLift);
      return topOf(ranked, limit).map((entry) => ({
        tool: entry.tool,
        score: Math.min(1, Math.max(0, 1 - entry.score / attainable)),
      }));
    },
  };

  /** Each field's terms: its words, split at identifier seams, lowercased and stemmed. */
  function termsOfFields<Field extends string>(fields: Record<Field, string>): Record<Field, string[]> {
    const terms = {} as Record<Field, string[]>;
    for (const field of Object.keys(fields) as Field[]) terms[field] = splitIntoWords(fields[field]).map(termOf);
    return terms;
  }

  /**
   * Scores every document of `target` for each query word (see `WordScores`). A word matched only
   * through a related word, a longer word or a near spelling counts that variant's weight toward the
   * matched share, not a whole word.
   */
  function scoreWords(target: WordIndex<string>, queries: readonly WordQuery[]): WordScores {
    const size = target.capacity();
    // Arrays, since common words touch thousands of tools at 10,000 and maps were the cost.
    const total = new Float64Array(size);
    const matched = new Float64Array(size);
    const touched: number[] = [];
    let attainable = 0;
    for (const query of queries) {
      const terms: TermMatch[] = [{ term: query.own, weight: 1 }, ...query.related];
      if (query.prefix || query.fuzzy > 0) {
        terms.push(
          ...target.expand(query.own, {
            prefixWeight: query.prefix ? parameters.prefixWeight : 0,
            fuzzyWeight: parameters.fuzzyWeight,
            maxEdits: query.fuzzy,
          }),
        );
      }
      attainable += target.score(terms, (id, score, weight) => {
        if (total[id] === 0 && matched[id] === 0) touched.push(id);
        total[id] = (total[id] as number) + score;
        matched[id] = (matched[id] as number) + (parameters.partialCoverage ? weight : 1);
      });
    }
    return { total, matched, touched, attainable };
  }

  /** The server index: one document per server, ranked by the same words as the tools. */
  function createServerIndex() {
    type ServerFields = { names: string; about: string; tools: string };
    const serverIndex = createWordIndex(['names', 'about', 'tools'] as const, parameters.serverBoosts, parameters.bm25);
    let byText = new Map<string, number>();
    let nextServerId = 0;
    /** What each tool adds to its server's text, kept per tool object as the tool fingerprints are. */
    const contributions = new WeakMap<SearchableTool, string>();
    const contributionOf = (tool: SearchableTool): string => {
      let text = contributions.get(tool);
      if (text === undefined) {
        text = ` ${tool.name} ${splitFirstSentence(tool.description)[0]}`;
        contributions.set(tool, text);
      }
      return text;
    };
    return {
      /** Indexes the servers of `tools`; returns each tool's server document id. */
      setTools(tools: readonly SearchableTool[]): number[] {
        const texts = new Map<string, ServerFields>();
        for (const tool of tools) {
          const fields = texts.get(tool.server_name) ?? {
            names: serverNamesOf(tool),
            about: tool.server_description ?? '',
            tools: '',
          };
          fields.tools += contributionOf(tool);
          texts.set(tool.server_name, fields);
        }
        const next = new Map<string, number>();
        const idOfServer = new Map<string, number>();
        for (const [name, fields] of texts) {
          const text = `${name}\u0000${fields.names}\u0000${fields.about}\u0000${fields.tools}`;
          let id = byText.get(text);
          if (id === undefined) {
            id = nextServerId++;
            serverIndex.add(id, termsOfFields(fields));
          }
          next.set(text, id);
          idOfServer.set(name, id);
        }
        for (const [text, id] of byText) if (!next.has(text)) serverIndex.remove(id);
        byText = next;
        return tools.map((tool) => idOfServer.get(tool.server_name) as number);
      },
      /** Each server's score for the query relative to the best server's, in [0, 1]. */
      shares(queries: readonly WordQuery[]): Float64Array {
        const scores = scoreWords(serverIndex, queries);
        const share = new Float64Array(serverIndex.capacity());
        let best = 0;
        for (const id of scores.touched) {
          const coverage = ((scores.matched[id] as number) / queries.length) ** parameters.coverageExponent;
          share[id] = (scores.total[id] as number) * coverage;
          if ((share[id] as number) > best) best = share[id] as number;
        }
        if (best > 0) for (const id of scores.touched) share[id] = (share[id] as number) / best;
        return share;
      },
    };
  }

  /** One query word: its own term, the terms related to it that some tool holds, and how to expand it. */
  function wordQueryOf(word: string): WordQuery {
    const own = termOf(word);
    const weights = new Map<string, number>();
    for (const [term, weight] of softwareSynonyms(own)) weights.set(term, weight);
    for (const [related, weight] of relatedWords.of(word)) {
      const term = termOf(related);
      if (weight > (weights.get(term) ?? 0)) weights.set(term, weight);
    }
    const related: TermMatch[] = [];
    for (const [term, weight] of weights) {
      // A related word no tool holds can match nothing; leaving it out saves a look-up per word.
      if (term !== own && index.documentFrequency(term) > 0) related.push({ term, weight });
    }
    return {
      own,
      related,
      // A word no tool holds may be a typo: only then are near spellings of it searched.
      fuzzy: index.documentFrequency(own) > 0 ? 0 : fuzzyDistance(own),
      prefix: /^\p{L}+$/u.test(word) && word.length >= parameters.minPrefixLength,
    };
  }
}

/** The `limit` best entries, best first, ties in list order, without sorting every touched tool. */
function topOf<Entry extends { score: number; position: number }>(entries: Entry[], limit: number): Entry[] {
  const before = (a: Entry, b: Entry) => b.score - a.score || a.position - b.position;
  if (limit <= 0) return [];
  if (entries.length <= limit * 4) return entries.sort(before).slice(0, limit);
  const kept: Entry[] = [];
  for (const entry of entries) {
    if (kept.length === limit && before(entry, kept[limit - 1] as Entry) >= 0) continue;
    let at = kept.length;
    while (at > 0 && before(entry, kept[at - 1] as Entry) < 0) at--;
    kept.splice(at, 0, entry);
    if (kept.length > limit) kept.pop();
  }
  return kept;
}

/** Typos tolerated: one edit from 4 letters on, two from 8 (`creat` finds `create`, `git` no `get`). */
function fuzzyDistance(term: string): number {
  if (!/^\p{L}+$/u.test(term)) return 0;
  if (term.length >= 8) return 2;
  return term.length >= 4 ? 1 : 0;
}
