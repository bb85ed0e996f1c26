/**
 * Reads the claims of docs/architecture.md that code can prove or disprove against the code, and fails
 * the build when one no longer holds. Each claim is a module of scripts/architecture/claims that quotes
 * what the document says; its test shows it failing on a tree that breaks it. Run:
 * `npm run check:architecture` (part of `npm run check`).
 */
import { resolve } from 'node:path';
import { architectureClaims } from './architecture/architectureClaims.ts';
import { readCodebase } from './architecture/codebase.ts';

const codebase = readCodebase(resolve(import.meta.dirname, '..'));
const failures: string[] = [];
for (const claim of architectureClaims) {
  const problems = claim.check(codebase);
  if (problems.length === 0) console.log(`holds: ${claim.name}`);
  else failures.push(`${claim.name}:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
}
if (failures.length > 0) {
  console.error(`\ndocs/architecture.md claims what the code does not do:\n\n${failures.join('\n\n')}`);
  process.exit(1);
}
