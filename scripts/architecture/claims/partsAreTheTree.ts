import type { Claim } from '../claim.ts';
import type { Codebase } from '../codebase.ts';

const folders = (codebase: Codebase, under: string) =>
  new Set(codebase.paths.filter((p) => p.startsWith(under)).map((p) => p.slice(under.length).split('/')[0] as string));

/**
 * "The parts" table names every part of the tree, and "The libraries:" every lib: a part the document
 * leaves out is one a reader never hears of, a part it names that is gone sends them looking.
 */
export const partsAreTheTree: Claim = {
  name: 'the parts table and the list of libraries name every part',
  check(codebase: Codebase) {
    const document = codebase.read('docs/architecture.md');
    const problems: string[] = [];
    const table = /^\| Part .*\n((?:\|.*\n)+)/m.exec(document)?.[1] ?? '';
    const rows = new Set([...table.matchAll(/^\| `([^`]+)` +\|/gm)].map((m) => (m[1] as string).replace(/\/$/, '')));
    const parts = new Set([
      ...[...folders(codebase, 'services/')]
        .filter((s) => codebase.exists(`services/${s}/package.json`))
        .map((s) => `services/${s}`),
      'satellite',
      'console',
      'libs',
    ]);
    for (const part of parts) if (!rows.has(part)) problems.push(`${part} is not in the parts table`);
    for (const row of rows) if (!parts.has(row)) problems.push(`the parts table names ${row}, which is not a part`);

    const paragraph = /^The libraries: ([\s\S]*?)\n\n/m.exec(document)?.[1] ?? '';
    const listed = new Set([...paragraph.matchAll(/`([a-z][a-z-]*)`/g)].map((m) => m[1] as string));
    const libs = new Set([...folders(codebase, 'libs/')].filter((lib) => codebase.exists(`libs/${lib}/package.json`)));
    for (const lib of libs) if (!listed.has(lib)) problems.push(`libs/${lib} is not in the list of libraries`);
    for (const lib of listed)
      if (!libs.has(lib)) problems.push(`the list of libraries names ${lib}, which is not in libs/`);
    return problems;
  },
};
