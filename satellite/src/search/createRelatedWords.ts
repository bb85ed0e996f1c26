import { createWordNet, type PartOfSpeech, partsOfSpeech, type WordNet } from './createWordNet.ts';

/** How much a related word counts, by how WordNet relates it; a word itself counts 1. */
export type RelationWeights = {
  /** Another word of the same sense (`make` -> `create`, `picture` -> `image`). */
  synonym: number;
  /** A word formed from it (`deletion` -> `delete`, `addition` -> `add`). */
  derived: number;
  /** An adjective of similar meaning (`small` -> `tiny`). */
  similar: number;
  /** A verb of the same verb group, or the more general word of a sense (`rename` -> `name`). */
  broader: number;
  /** Weight of the n-th sense (1-based): `1 / (1 + senseDecay * (n - 1))`; WordNet lists common senses first. */
  senseDecay: number;
  /** Senses looked at per part of speech; rare senses of common words add mostly noise. */
  maxSenses: number;
};

export const defaultRelationWeights: RelationWeights = {
  synonym: 0.3,
  derived: 0.5,
  similar: 0.35,
  broader: 0,
  senseDecay: 0.25,
  maxSenses: 8,
};

export type RelatedWords = {
  /** Single words related to `word` with their weight in (0, 1), the word itself left out. */
  of(word: string): ReadonlyMap<string, number>;
  /** Whether WordNet knows `word` (or a base form of it) as a verb. */
  isVerb(word: string): boolean;
};

/**
 * Related words from WordNet, for the plain-word ranking to find a tool described in other words than
 * the agent's. WordNet is read once, lazily, at the first look-up; each word's answer is remembered
 * (bounded), since agents repeat their words.
 */
export function createRelatedWords(
  weights: RelationWeights = defaultRelationWeights,
  wordNet: () => WordNet = lazyWordNet(),
): RelatedWords {
  const cache = new Map<string, ReadonlyMap<string, number>>();
  return {
    of(word) {
      const cached = cache.get(word);
      if (cached) return cached;
      const related = lookUp(wordNet(), word, weights);
      if (cache.size >= 10_000) cache.clear();
      cache.set(word, related);
      return related;
    },
    isVerb(word) {
      return wordNet().lemmasOf(word, 'verb').length > 0;
    },
  };
}

let shared: RelatedWords | undefined;

/** One WordNet and one cache for the whole process, however many search indexes (one per team) use it. */
export function sharedRelatedWords(): RelatedWords {
  shared ??= createRelatedWords();
  return shared;
}

function lazyWordNet(): () => WordNet {
  let wordNet: WordNet | undefined;
  return () => {
    wordNet ??= createWordNet();
    return wordNet;
  };
}

function lookUp(wordNet: WordNet, word: string, weights: RelationWeights): Map<string, number> {
  const related = new Map<string, number>();
  const add = (candidate: string, weight: number) => {
    // Multi-word entries (`add_together`) and the word's own forms carry nothing new.
    if (weight <= 0 || candidate.includes('_') || candidate.includes('-') || candidate === word) return;
    if ((related.get(candidate) ?? 0) < weight) related.set(candidate, weight);
  };
  for (const pos of partsOfSpeech) {
    for (const lemma of wordNet.lemmasOf(word, pos)) {
      if (lemma !== word) add(lemma, 1);
      const senses = wordNet.sensesOf(lemma, pos).slice(0, weights.maxSenses);
      senses.forEach((synset, rank) => {
        const senseWeight = 1 / (1 + weights.senseDecay * rank);
        const position = synset.words.indexOf(lemma) + 1;
        for (const synonym of synset.words) add(synonym, weights.synonym * senseWeight);
        for (const pointer of synset.pointers) {
          const weight = relationWeight(pointer.symbol, pos, weights);
          if (!weight) continue;
          // A lexical link (source word set) belongs to one word of the synset: only this one's count.
          if (pointer.sourceWord !== 0 && pointer.sourceWord !== position) continue;
          const target = wordNet.synsetAt(pointer.pos, pointer.offset);
          const targets = pointer.targetWord === 0 ? target.words : [target.words[pointer.targetWord - 1]];
          for (const other of targets) if (other) add(other, weight * senseWeight);
        }
      });
    }
  }
  related.delete(word);
  return related;
}

function relationWeight(symbol: string, pos: PartOfSpeech, weights: RelationWeights): number {
  switch (symbol) {
    case '+':
      return weights.derived;
    case '&':
      return pos === 'adj' ? weights.similar : 0;
    case '$':
      return weights.broader;
    case '@':
      return pos === 'verb' ? weights.broader : 0;
    default:
      return 0;
  }
}
