/** BM25+ parameters: term saturation k, length normalisation b, and the floor d every match earns. */
export type Bm25Parameters = { k: number; b: number; d: number };

/** One indexed term a query word reaches, with how much of the word's weight it carries. */
export type TermMatch = { term: string; weight: number };

export type WordIndex<Field extends string> = {
  /** Adds a document; `terms` holds each field's terms, in order, repeats counted. */
  add(id: number, terms: Record<Field, readonly string[]>): void;
  remove(id: number): void;
  /** How many documents hold `term` in any field. */
  documentFrequency(term: string): number;
  /**
   * Indexed terms that begin with `term` and are longer (each weighted `weight * length / (length + 0.3
   * * extra letters)`), and indexed terms within `maxEdits` edits of it (`weight * length / (length +
   * edits)`).
   */
  expand(term: string, options: { prefixWeight: number; fuzzyWeight: number; maxEdits: number }): TermMatch[];
  /**
   * Scores one query word, given as the terms it reaches: each document's BM25+ score summed over the
   * terms (each times its weight) and over fields (with their boosts). Calls `visit` once per document
   * holding any of them, with that score and the largest weight among the terms it holds; returns the
   * best score.
   */
  score(terms: readonly TermMatch[], visit: (id: number, score: number, weight: number) => void): number;
  /** One past the largest id ever added: the size of arrays indexed by document id. */
  capacity(): number;
};

/**
 * An inverted index with BM25+ over several fields, made for discovery's plain-word ranking: a query
 * is a handful of words, each with a dozen related terms, over up to tens of thousands of tools. Posting
 * lists are flat arrays scored into the caller's typed arrays, so a query allocates almost nothing; a
 * removed document is skipped at once and its postings dropped when a list is next compacted. Corpus
 * statistics (documents, average field lengths, document frequencies) always count live documents only,
 * so two equal documents score equally whatever was removed in between.
 */
export function createWordIndex<Field extends string>(
  fields: readonly Field[],
  boosts: Record<Field, number>,
  bm25: Bm25Parameters,
): WordIndex<Field> {
  const fieldCount = fields.length;
  const boost = Float64Array.from(fields, (field) => boosts[field]);
  type Postings = { ids: number[]; tf: number[]; dead: number; perField: Int32Array; live: number };
  const postings = new Map<string, Postings>();
  /** Per document: field lengths (fieldCount per id), and whether it is live. */
  let lengths = new Float64Array(64 * fieldCount);
  let alive = new Uint8Array(64);
  const totalLength = new Float64Array(fieldCount);
  const termsOf = new Map<number, Map<string, Int32Array>>();
  let documents = 0;
  let nextCapacity = 0;
  /** Scratch of one `score` call, kept between calls so a query allocates nothing per document. */
  let wordScores = new Float64Array(64);
  let wordWeights = new Float64Array(64);
  const wordTouched: number[] = [];
  let sortedTerms: string[] | undefined;

  const grow = (id: number) => {
    if (id < alive.length) return;
    let size = alive.length;
    while (size <= id) size *= 2;
    const nextAlive = new Uint8Array(size);
    nextAlive.set(alive);
    alive = nextAlive;
    const nextLengths = new Float64Array(size * fieldCount);
    nextLengths.set(lengths);
    lengths = nextLengths;
  };

  const compact = (list: Postings) => {
    const ids: number[] = [];
    const tf: number[] = [];
    for (let i = 0; i < list.ids.length; i++) {
      const id = list.ids[i] as number;
      if (!alive[id]) continue;
      ids.push(id);
      for (let f = 0; f < fieldCount; f++) tf.push(list.tf[i * fieldCount + f] as number);
    }
    list.ids = ids;
    list.tf = tf;
    list.dead = 0;
  };

  return {
    add(id, terms) {
      if (termsOf.has(id)) throw new Error(`document ${id} is already indexed`);
      grow(id);
      const counts = new Map<string, Int32Array>();
      fields.forEach((field, f) => {
        const list = terms[field];
        lengths[id * fieldCount + f] = list.length;
        totalLength[f] = (totalLength[f] as number) + list.length;
        for (const term of list) {
          let count = counts.get(term);
          if (!count) {
            count = new Int32Array(fieldCount);
            counts.set(term, count);
          }
          count[f] = (count[f] as number) + 1;
        }
      });
      for (const [term, count] of counts) {
        let list = postings.get(term);
        if (!list) {
          list = { ids: [], tf: [], dead: 0, perField: new Int32Array(fieldCount), live: 0 };
          postings.set(term, list);
          sortedTerms = undefined;
        }
        list.ids.push(id);
        for (let f = 0; f < fieldCount; f++) {
          list.tf.push(count[f] as number);
          if ((count[f] as number) > 0) list.perField[f] = (list.perField[f] as number) + 1;
        }
        list.live++;
      }
      termsOf.set(id, counts);
      alive[id] = 1;
      documents++;
      nextCapacity = Math.max(nextCapacity, id + 1);
    },
    remove(id) {
      const counts = termsOf.get(id);
      if (!counts) return;
      termsOf.delete(id);
      alive[id] = 0;
      documents--;
      for (let f = 0; f < fieldCount; f++)
        totalLength[f] = (totalLength[f] as number) - (lengths[id * fieldCount + f] as number);
      for (const [term, count] of counts) {
        const list = postings.get(term);
        if (!list) continue;
        list.live--;
        for (let f = 0; f < fieldCount; f++)
          if ((count[f] as number) > 0) list.perField[f] = (list.perField[f] as number) - 1;
        if (list.live === 0) {
          postings.delete(term);
          sortedTerms = undefined;
        } else if (++list.dead > list.live) compact(list);
      }
    },
    documentFrequency(term) {
      return postings.get(term)?.live ?? 0;
    },
    expand(term, { prefixWeight, fuzzyWeight, maxEdits }) {
      const found: TermMatch[] = [];
      if (prefixWeight > 0) {
        sortedTerms ??= [...postings.keys()].sort();
        let low = 0;
        let high = sortedTerms.length;
        while (low < high) {
          const middle = (low + high) >>> 1;
          if ((sortedTerms[middle] as string) < term) low = middle + 1;
          else high = middle;
        }
        for (let i = low; i < sortedTerms.length; i++) {
          const candidate = sortedTerms[i] as string;
          if (!candidate.startsWith(term)) break;
          if (candidate === term) continue;
          const extra = candidate.length - term.length;
          found.push({ term: candidate, weight: (prefixWeight * term.length) / (term.length + 0.3 * extra) });
        }
      }
      if (maxEdits > 0 && fuzzyWeight > 0) {
        for (const candidate of postings.keys()) {
          if (candidate === term || Math.abs(candidate.length - term.length) > maxEdits) continue;
          const edits = boundedEditDistance(term, candidate, maxEdits);
          if (edits <= maxEdits && !candidate.startsWith(term)) {
            found.push({ term: candidate, weight: (fuzzyWeight * term.length) / (term.length + edits) });
          }
        }
      }
      return found;
    },
    score(terms, visit) {
      if (documents === 0) return 0;
      if (wordScores.length < alive.length) {
        wordScores = new Float64Array(alive.length);
        wordWeights = new Float64Array(alive.length);
      }
      const averages = Float64Array.from(totalLength, (total) => Math.max(total / documents, 1e-9));
      const idf = new Float64Array(fieldCount);
      let best = 0;
      for (const { term, weight } of terms) {
        const list = postings.get(term);
        if (!list || weight <= 0) continue;
        for (let f = 0; f < fieldCount; f++) {
          const n = list.perField[f] as number;
          idf[f] = n > 0 ? Math.log(1 + (documents - n + 0.5) / (n + 0.5)) : 0;
        }
        const { ids, tf } = list;
        for (let i = 0; i < ids.length; i++) {
          const id = ids[i] as number;
          if (!alive[id]) continue;
          let score = 0;
          for (let f = 0; f < fieldCount; f++) {
            const frequency = tf[i * fieldCount + f] as number;
            if (frequency === 0) continue;
            const norm = 1 - bm25.b + (bm25.b * (lengths[id * fieldCount + f] as number)) / (averages[f] as number);
            score +=
              (boost[f] as number) *
              (idf[f] as number) *
              (bm25.d + (frequency * (bm25.k + 1)) / (frequency + bm25.k * norm));
          }
          if (wordWeights[id] === 0) wordTouched.push(id);
          wordScores[id] = (wordScores[id] as number) + score * weight;
          if (weight > (wordWeights[id] as number)) wordWeights[id] = weight;
        }
      }
      for (const id of wordTouched) {
        const score = wordScores[id] as number;
        if (score > best) best = score;
        visit(id, score, wordWeights[id] as number);
        wordScores[id] = 0;
        wordWeights[id] = 0;
      }
      wordTouched.length = 0;
      return best;
    },
    capacity: () => nextCapacity,
  };
}

/** Levenshtein distance between two words when at most `max`, otherwise `max + 1`. */
function boundedEditDistance(a: string, b: string, max: number): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowBest = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + cost,
      );
      current.push(value);
      if (value < rowBest) rowBest = value;
    }
    if (rowBest > max) return max + 1;
    previous = current;
  }
  return Math.min(previous[b.length] as number, max + 1);
}
