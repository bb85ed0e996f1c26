/**
 * Fails when any module of the repository imports itself through others: a cycle makes load order
 * matter (a value read before its module finished), and it is the first sign that two parts should be
 * one or that a boundary is in the wrong place. Type-only imports count too: they tie the parts
 * together just the same for whoever reads or moves them.
 *
 * The graph is every file the root tsconfig checks, with imports resolved by TypeScript itself (so
 * `@orbital/*` workspace packages lead to their files through package exports). Run:
 * `npm run check:cycles` (part of `npm run check`).
 */
import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import ts from 'typescript';

const root = resolve(import.meta.dirname, '..');
const configPath = ts.findConfigFile(root, ts.sys.fileExists, 'tsconfig.json');
if (!configPath) throw new Error('no tsconfig.json at the repository root');
const config = ts.parseJsonConfigFileContent(ts.readConfigFile(configPath, ts.sys.readFile).config, ts.sys, root);
const real = (path: string) => ts.sys.realpath?.(path) ?? path;
const inRepository = (path: string) => !relative(root, path).startsWith('..') && !path.includes('/node_modules/');

const files = config.fileNames.map(real);
const edges = new Map<string, string[]>();
for (const file of files) {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  const targets: string[] = [];
  for (const imported of importedFiles) {
    const resolved = ts.resolveModuleName(imported.fileName, file, config.options, ts.sys).resolvedModule;
    if (!resolved) continue;
    const target = real(resolved.resolvedFileName);
    if (inRepository(target)) targets.push(target);
  }
  edges.set(file, targets);
}

/** Tarjan's strongly connected components: every component of more than one file is a cycle. */
function cycles(): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, counter);
    low.set(node, counter);
    counter++;
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) as number, low.get(next) as number));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node) as number, index.get(next) as number));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string | undefined;
      do {
        member = stack.pop() as string;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      const selfImport = (edges.get(node) ?? []).includes(node);
      if (component.length > 1 || selfImport) found.push(component);
    }
  };
  for (const file of edges.keys()) if (!index.has(file)) visit(file);
  return found;
}

const found = cycles();
if (found.length > 0) {
  console.error(`${found.length} import cycle(s):`);
  for (const component of found) {
    console.error(
      `- ${component
        .map((file) => relative(root, file))
        .sort()
        .join('\n  ')}`,
    );
  }
  process.exit(1);
}
console.log(`no import cycles among ${edges.size} modules`);
