/**
 * Whether some substring of `text` is within `maxErrors` edits (Levenshtein: insertions, deletions,
 * substitutions of UTF-16 code units) of `pattern`. Myers' bit-vector algorithm, one 32-bit word, so
 * `pattern` holds 1 to 32 code units.
 *
 * Why it is a sound filter for Fuse: when Fuse's Bitap (with `ignoreLocation`) reports a match with `i`
 * errors, its bit rows encode an alignment of the pattern against the text (positions past the end act
 * as characters that match nothing) costing at most `i` edits, and such an alignment yields a real
 * substring within `i` edits. So a text for which this returns false can never be a Fuse match.
 */
export function hasApproximateMatch(pattern: string, text: string, maxErrors: number): boolean {
  const length = pattern.length;
  if (length === 0 || length > 32) throw new RangeError('pattern must hold 1 to 32 code units');
  if (maxErrors >= length) return true;
  const peq = new Map<number, number>();
  for (let i = 0; i < length; i++) {
    const code = pattern.charCodeAt(i);
    peq.set(code, (peq.get(code) ?? 0) | (1 << i));
  }
  const last = 1 << (length - 1);
  let positive = length === 32 ? -1 : (1 << length) - 1;
  let negative = 0;
  let score = length;
  for (let j = 0; j < text.length; j++) {
    const equal = peq.get(text.charCodeAt(j)) ?? 0;
    const xv = equal | negative;
    // The sum may carry past bit 31; `^` truncates back to 32 bits, which is the carry we want.
    const xh = ((((equal & positive) >>> 0) + (positive >>> 0)) ^ positive) | equal;
    let horizontalPositive = negative | ~(xh | positive);
    let horizontalNegative = positive & xh;
    if (horizontalPositive & last) score++;
    else if (horizontalNegative & last) score--;
    if (score <= maxErrors) return true;
    // Searching, not comparing whole strings: row 0 is zero everywhere, so nothing shifts in.
    horizontalPositive <<= 1;
    horizontalNegative <<= 1;
    positive = horizontalNegative | ~(xv | horizontalPositive);
    negative = horizontalPositive & xv;
  }
  return false;
}
