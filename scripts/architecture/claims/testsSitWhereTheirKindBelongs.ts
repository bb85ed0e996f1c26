import type { Claim } from '../claim.ts';
import type { Codebase } from '../codebase.ts';

const workspace = /^(?:libs\/[^/]+|services\/[^/]+|satellite|console)\//;

/**
 * "Unit tests (`*.test.ts`, no I/O) sit beside the code they test, in the part's `src/` (the root's
 * scripts keep theirs beside them in `scripts/`); integration tests (`*.int.test.ts`) and end-to-end
 * tests (`*.e2e.test.ts`) sit in the part's `test/` folder ..., and those of the whole platform or of
 * the root's scripts in the root `test/`."
 */
export const testsSitWhereTheirKindBelongs: Claim = {
  name: 'every test sits where its kind belongs',
  check(codebase: Codebase) {
    const problems: string[] = [];
    for (const path of codebase.paths.filter((p) => /\.test\.tsx?$/.test(p))) {
      const part = workspace.exec(path)?.[0] ?? '';
      const inPart = path.slice(part.length);
      const where = part === '' ? 'the root' : part.slice(0, -1);
      if (/\.(?:int|e2e)\.test\.tsx?$/.test(path)) {
        if (!inPart.startsWith('test/')) {
          problems.push(`${path}: an integration or end-to-end test outside ${where}'s test/`);
        }
      } else if (part !== '' ? !inPart.startsWith('src/') : inPart.startsWith('test/')) {
        problems.push(`${path}: a unit test away from the code it tests (${where}'s ${part ? 'src/' : 'scripts/'})`);
      }
    }
    return problems;
  },
};
