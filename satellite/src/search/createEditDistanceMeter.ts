/**
 * Measures how close `pattern` comes to any substring of a text: the least number of edits
 * (Levenshtein: insertions, deletions, substitutions of UTF-16 code units) turning the pattern into
 * some substring. Myers' bit-vector algorithm in one 32-bit word, so the pattern holds 1 to 32 units.
 *
 * Why it bounds Fuse: when Fuse's Bitap (with `ignoreLocation`) reports a match with `i` errors, its bit
 * rows encode an alignment of the pattern against the text costing at most `i` edits (positions past
 * the end act as characters that match nothing, which only costs more), so some real substring is within
 * `i` edits. Hence a Fuse match needs `distance <= i`, and its score `i / length` is at least
 * `distance / length`.
 */
export type EditDistanceMeter = {
  /**
   * The least edit distance from the pattern to a substring of `text[from, to)` (the whole text by
   * default); stops early at 0.
   */
  distance(text: string, from?: number, to?: number): number;
  /**
   * The least edit distance when it is at most `maxErrors` (below the pattern's length), otherwise
   * `maxErrors + 1`, which is still a lower bound of it. Looks only around exact occurrences of the
   * pattern's pieces: cut into `maxErrors + 1` pieces, a substring within `maxErrors` edits holds at
   * least one piece untouched (each edit touches at most one), and its start lies within `maxErrors` of
   * where that piece places it. For a short pattern in long descriptions this scans a few windows
   * instead of every character.
   */
  distanceUpTo(text: string, maxErrors: number): number;
};

export function createEditDistanceMeter(pattern: string): EditDistanceMeter {
  const length = pattern.length;
  if (length === 0 || length > 32) throw new RangeError('pattern must hold 1 to 32 code units');
  // Pattern positions of each code unit: a table for ASCII, a map for the rest.
  const ascii = new Int32Array(128);
  const other = new Map<number, number>();
  for (let i = 0; i < length; i++) {
    const code = pattern.charCodeAt(i);
    if (code < 128) ascii[code] = (ascii[code] as number) | (1 << i);
    else other.set(code, (other.get(code) ?? 0) | (1 << i));
  }
  const last = 1 << (length - 1);
  const full = length === 32 ? -1 : (1 << length) - 1;
  const pieceCache = new Map<number, Array<{ text: string; offset: number }>>();
  const piecesFor = (maxErrors: number) => {
    let pieces = pieceCache.get(maxErrors);
    if (!pieces) {
      pieces = [];
      const count = maxErrors + 1;
      for (let i = 0; i < count; i++) {
        const start = Math.floor((i * length) / count);
        const end = Math.floor(((i + 1) * length) / count);
        pieces.push({ text: pattern.slice(start, end), offset: start });
      }
      pieceCache.set(maxErrors, pieces);
    }
    return pieces;
  };
  const meter: EditDistanceMeter = {
    distance(text, from = 0, to = text.length) {
      let positive = full;
      let negative = 0;
      let score = length;
      let best = length;
      for (let j = from; j < to; j++) {
        const code = text.charCodeAt(j);
        const equal = code < 128 ? (ascii[code] as number) : (other.get(code) ?? 0);
        const xv = equal | negative;
        // The sum may carry past bit 31; `^` truncates back to 32 bits, which is the carry we want.
        const xh = ((((equal & positive) >>> 0) + (positive >>> 0)) ^ positive) | equal;
        let horizontalPositive = negative | ~(xh | positive);
        let horizontalNegative = positive & xh;
        if (horizontalPositive & last) score++;
        else if (horizontalNegative & last) {
          score--;
          if (score < best) {
            best = score;
            if (best === 0) return 0;
          }
        }
        // Searching rather than comparing whole strings: row 0 is zero everywhere, nothing shifts in.
        horizontalPositive <<= 1;
        horizontalNegative <<= 1;
        positive = horizontalNegative | ~(xv | horizontalPositive);
        negative = horizontalPositive & xv;
      }
      return best;
    },
    distanceUpTo(text, maxErrors) {
      if (maxErrors <= 0 || maxErrors >= length) {
        if (maxErrors <= 0) return text.includes(pattern) ? 0 : 1;
        return Math.min(meter.distance(text), maxErrors + 1);
      }
      let best = maxErrors + 1;
      for (const piece of piecesFor(maxErrors)) {
        for (let at = text.indexOf(piece.text); at !== -1; at = text.indexOf(piece.text, at + 1)) {
          // The substring starts within maxErrors of at - offset and is at most length + maxErrors long.
          const from = Math.max(0, at - piece.offset - maxErrors);
          const to = Math.min(text.length, at - piece.offset + length + 2 * maxErrors);
          const found = meter.distance(text, from, to);
          if (found < best) {
            best = found;
            if (best === 0) return 0;
          }
        }
      }
      return best;
    },
  };
  return meter;
}
