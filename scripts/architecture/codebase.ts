import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

/**
 * The repository as the claims read it: every file by its path from the root, its text read and parsed
 * only when a claim asks. Claims take this rather than the disk, so each one can be shown failing on a
 * small made-up tree (`codebaseOf`) as well as run on the real one (`readCodebase`).
 */
export interface Codebase {
  /** Every file, as a path from the repository root with `/` separators, sorted. */
  readonly paths: readonly string[];
  read(path: string): string;
  parse(path: string): ts.SourceFile;
  /** A file, or a folder holding at least one file. */
  exists(path: string): boolean;
}

const skipped = new Set(['node_modules', '.git', 'dist', 'coverage', 'persistent_data', 'test-results']);

function createCodebase(paths: string[], load: (path: string) => string): Codebase {
  const sorted = [...paths].sort();
  const texts = new Map<string, string>();
  const trees = new Map<string, ts.SourceFile>();
  const folders = new Set<string>();
  for (const path of sorted) {
    for (let at = path.lastIndexOf('/'); at > 0; at = path.lastIndexOf('/', at - 1)) folders.add(path.slice(0, at));
  }
  const files = new Set(sorted);
  const read = (path: string) => {
    let text = texts.get(path);
    if (text === undefined) {
      text = load(path);
      texts.set(path, text);
    }
    return text;
  };
  return {
    paths: sorted,
    read,
    parse(path) {
      let tree = trees.get(path);
      if (!tree) {
        tree = ts.createSourceFile(path, read(path), ts.ScriptTarget.Latest, true);
        trees.set(path, tree);
      }
      return tree;
    },
    exists: (path) => files.has(path) || folders.has(path.replace(/\/$/, '')),
  };
}

/** The working tree under `root`, without dependencies and build output. */
export function readCodebase(root: string): Codebase {
  const paths: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      if (skipped.has(name)) continue;
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else paths.push(relative(root, path));
    }
  };
  walk(root);
  return createCodebase(paths, (path) => readFileSync(join(root, path), 'utf8'));
}

/** A made-up tree, for showing a claim fail. */
export function codebaseOf(files: Record<string, string>): Codebase {
  return createCodebase(Object.keys(files), (path) => {
    const text = files[path];
    if (text === undefined) throw new Error(`no file ${path}`);
    return text;
  });
}
