import ts from 'typescript';
import type { Claim } from '../claim.ts';
import type { Codebase } from '../codebase.ts';

/** Pointers at documents a reader of the repository does not have, and numbers that only they explain. */
const pointers: { pattern: RegExp; what: string }[] = [
  { pattern: /\.\.\/shared\b|\bshared\/spec/, what: 'a folder outside the repository' },
  { pattern: /\b(?:spec|DESIGN|CONVENTIONS)\.md\b|\bthe brief\b/i, what: 'a document outside the repository' },
  { pattern: /\bspec(?:ification)?(?:'s)? (?:rule|section|§)|\bspec "|§ ?\d/i, what: 'a place in the specification' },
  { pattern: /\b(?:issue|improvement|rule|item) #?\d+\b/i, what: 'an issue, rule or item by its number' },
  { pattern: /(?:^|[\s(])#\d{1,4}\b/, what: 'an issue by its number' },
];

/** Where these patterns may stand: the claim's own definition and its test. */
const exempt = new Set([
  'scripts/architecture/claims/noReferenceOutside.ts',
  'scripts/architecture/claims/noReferenceOutside.test.ts',
]);

const prose = /\.(md|sql|ya?ml|sh|html)$/;

/** The comments of a TypeScript file: code may say `#1` (a colour, a private name), prose may not. */
function commentsOf(text: string): string {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.JSX, text);
  const comments: string[] = [];
  for (let token = scanner.scan(); token !== ts.SyntaxKind.EndOfFileToken; token = scanner.scan()) {
    if (token === ts.SyntaxKind.SingleLineCommentTrivia || token === ts.SyntaxKind.MultiLineCommentTrivia) {
      comments.push(scanner.getTokenText());
    } else {
      comments.push(scanner.getTokenText().replace(/[^\n]/g, ''));
    }
  }
  return comments.join('');
}

/**
 * "The specification itself lives outside this repository; everything needed to work on the code is
 * here": no document, comment or configuration points the reader at a document they do not have, or
 * names an issue or a rule by a number only that document explains.
 */
export const noReferenceOutside: Claim = {
  name: 'no reference to a document outside the repository',
  check(codebase: Codebase) {
    const problems: string[] = [];
    for (const path of codebase.paths) {
      if (exempt.has(path)) continue;
      const typeScript = /\.tsx?$/.test(path);
      if (!typeScript && !prose.test(path)) continue;
      const text = typeScript ? commentsOf(codebase.read(path)) : codebase.read(path);
      text.split('\n').forEach((line, index) => {
        const found = pointers.find(({ pattern }) => pattern.test(line));
        if (found) problems.push(`${path}:${index + 1}: ${found.what}: ${line.trim().slice(0, 100)}`);
      });
    }
    return problems;
  },
};
