/**
 * Fuse.js 7.5 extended-search grammar, re-read so the index can bound each term. Fuse keeps its parsed
 * query private, so this mirrors its rules precisely (checked against Fuse by the equality tests):
 * - the query is split into OR groups on `|` (`\|` is a literal pipe); a group matches a field when all
 *   its terms match that same field;
 * - terms are separated by spaces; a term may be double-quoted to hold spaces;
 * - each term is read by the first operator whose quoted form matches, else the first whose bare form
 *   does; an operator whose captured pattern is empty is passed over (so a lone `=` is a fuzzy term);
 * - a term with a line break matches no operator at all and is dropped, as in Fuse.
 * The caller lowercases the query first, as Fuse does before parsing.
 */
export type ExtendedTermType =
  | 'exact'
  | 'include'
  | 'prefix-exact'
  | 'inverse-prefix-exact'
  | 'inverse-suffix-exact'
  | 'suffix-exact'
  | 'inverse-exact'
  | 'fuzzy';

export type ExtendedTerm = { type: ExtendedTermType; pattern: string };

const operators: ReadonlyArray<{ type: ExtendedTermType; quoted: RegExp; bare: RegExp }> = [
  { type: 'exact', quoted: /^="(.*)"$/, bare: /^=(.*)$/ },
  { type: 'include', quoted: /^'"(.*)"$/, bare: /^'(.*)$/ },
  { type: 'prefix-exact', quoted: /^\^"(.*)"$/, bare: /^\^(.*)$/ },
  { type: 'inverse-prefix-exact', quoted: /^!\^"(.*)"$/, bare: /^!\^(.*)$/ },
  { type: 'inverse-suffix-exact', quoted: /^!"(.*)"\$$/, bare: /^!(.*)\$$/ },
  { type: 'suffix-exact', quoted: /^"(.*)"\$$/, bare: /^(.*)\$$/ },
  { type: 'inverse-exact', quoted: /^!"(.*)"$/, bare: /^!(.*)$/ },
  { type: 'fuzzy', quoted: /^"(.*)"$/, bare: /^(.*)$/ },
];

export function isInverseTerm(type: ExtendedTermType): boolean {
  return type.startsWith('inverse');
}

export function parseExtendedQuery(lowercasedQuery: string): ExtendedTerm[][] {
  // Like Fuse, `\|` is parked on NUL while splitting, and every NUL (a typed one too) becomes `|`.
  return lowercasedQuery
    .replaceAll('\\|', '\u0000')
    .split('|')
    .map((group) => {
      const terms: ExtendedTerm[] = [];
      for (const token of splitTerms(group.replaceAll('\u0000', '|').trim())) {
        if (!token.trim()) continue;
        const term = readTerm(token);
        if (term) terms.push(term);
      }
      return terms;
    });
}

function readTerm(token: string): ExtendedTerm | undefined {
  for (const form of ['quoted', 'bare'] as const) {
    for (const operator of operators) {
      const pattern = operator[form].exec(token)?.[1];
      if (pattern) return { type: operator.type, pattern };
    }
  }
  return undefined;
}

/**
 * Space-separated terms; a `"` inside a term opens a quoted run that ends at a `"` followed by a space,
 * by `$` and a space, or by the end of the text.
 */
function splitTerms(text: string): string[] {
  const terms: string[] = [];
  const length = text.length;
  let start = 0;
  while (start < length) {
    if (text[start] === ' ') {
      start++;
      continue;
    }
    let end = start;
    while (end < length && text[end] !== ' ' && text[end] !== '"') end++;
    if (end < length && text[end] === '"') {
      end++;
      while (end < length) {
        if (text[end] === '"') {
          const next = end + 1;
          if (next >= length || text[next] === ' ') {
            end++;
            break;
          }
          if (text[next] === '$' && (next + 1 >= length || text[next + 1] === ' ')) {
            end += 2;
            break;
          }
        }
        end++;
      }
    } else {
      while (end < length && text[end] !== ' ') end++;
    }
    terms.push(text.substring(start, end));
    start = end;
  }
  return terms;
}
