/**
 * Whether a discovery query is written in Fuse.js's extended-search syntax, and so is answered with
 * Fuse's exact semantics, rather than in plain words. A query is an operator query when it holds
 *
 * - a `|` anywhere (Fuse's OR between groups of terms), or
 * - a term (text between spaces) that starts with `=` (exact), `^` (prefix) or `!` (inverse), followed
 *   by at least one character: `=echo`, `^read`, `!git`, `!^test`, `="read file"`, or
 * - a term that starts with `'` (include) followed by at least one character, unless it opens a
 *   quotation closed by a term ending with `'` (`'tiny'` and `'read the file'` are quotations, `'tiny`
 *   is the operator), or
 * - a term that ends with `$` (suffix) after at least one character that is not a digit: `file$`,
 *   `"read file"$`; `5$` and `$5` are amounts.
 *
 * An apostrophe or a `$` inside a word (`what's`, `user's`, `US$5`), a lone operator character, and
 * `!` or `$` at a word's other end (`hello!`, `$HOME`) leave a query plain.
 */
export function isOperatorQuery(query: string): boolean {
  if (query.includes('|')) return true;
  const terms = query.split(/\s+/).filter(Boolean);
  for (let i = 0; i < terms.length; i++) {
    const term = terms[i] as string;
    if (term.length < 2) continue;
    const first = term[0];
    if (first === '=' || first === '^' || first === '!') return true;
    if (first === "'" && !opensQuotation(terms, i)) return true;
    if (term.endsWith('$') && !/\d/.test(term[term.length - 2] as string)) return true;
  }
  return false;
}

/** A term starting with `'` opens a quotation when it, or a later term, ends with `'`. */
function opensQuotation(terms: readonly string[], at: number): boolean {
  const first = terms[at] as string;
  if (first.length > 2 && first.endsWith("'")) return true;
  for (let i = at + 1; i < terms.length; i++) if ((terms[i] as string).endsWith("'")) return true;
  return false;
}
