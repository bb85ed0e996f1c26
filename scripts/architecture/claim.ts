import ts from 'typescript';
import type { Codebase } from './codebase.ts';

/**
 * One claim of docs/architecture.md that the code can prove or disprove: what the document says, and
 * the problems found against it (none when it holds). A claim that changes changes here and in the
 * document together.
 */
export interface Claim {
  /** What the document promises, in a few words. */
  name: string;
  check(codebase: Codebase): string[];
}

/** The parts that hold TypeScript of the platform, its tools and its tests. */
const parts = ['libs/', 'services/', 'satellite/', 'console/', 'scripts/', 'bench/', 'test/'];

export const isTypeScript = (path: string) => /\.tsx?$/.test(path) && parts.some((part) => path.startsWith(part));
export const isTest = (path: string) => /\.test\.tsx?$/.test(path) || /(^|\/)test\//.test(path);

export function typeScriptFiles(codebase: Codebase): string[] {
  return codebase.paths.filter(isTypeScript);
}

export function visit(node: ts.Node, each: (node: ts.Node) => void): void {
  each(node);
  node.forEachChild((child) => visit(child, each));
}

/** `f(...)` and `x.f(...)` are both calls of `f`. */
export function calledName(call: ts.CallExpression): string | null {
  const callee = call.expression;
  if (ts.isIdentifier(callee)) return callee.text;
  if (ts.isPropertyAccessExpression(callee)) return callee.name.text;
  return null;
}

/** `path:line` of a node, for a problem a reader can jump to. */
export function placeOf(file: ts.SourceFile, node: ts.Node): string {
  return `${file.fileName}:${file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1}`;
}

/** The module names a file imports or re-exports, with the node that names each. */
export function importsOf(file: ts.SourceFile): { module: string; node: ts.Node }[] {
  const found: { module: string; node: ts.Node }[] = [];
  for (const statement of file.statements) {
    if (
      (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) &&
      statement.moduleSpecifier &&
      ts.isStringLiteral(statement.moduleSpecifier)
    ) {
      found.push({ module: statement.moduleSpecifier.text, node: statement });
    }
  }
  visit(file, (node) => {
    if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      found.push({ module: node.arguments[0].text, node });
    }
  });
  return found;
}

/** A relative import resolved against the importing file, as a path from the root. */
export function resolveImport(from: string, module: string): string {
  const parts = from.split('/').slice(0, -1);
  for (const step of module.split('/')) {
    if (step === '..') parts.pop();
    else if (step !== '.') parts.push(step);
  }
  return parts.join('/');
}
