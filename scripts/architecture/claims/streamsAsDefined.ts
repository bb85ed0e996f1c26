import ts from 'typescript';
import type { Claim } from '../claim.ts';
import type { Codebase } from '../codebase.ts';

const definitions = 'libs/contracts/src/events/eventStreams.ts';
const document = 'docs/events.md';

type Stream = {
  name: string;
  subjects: string;
  owner: string;
  maxAgeMs: number;
  maxBytes: number;
  duplicateWindowMs: number;
  discard: string;
};

/** A number written with the file's own constants (`7 * day`, `256 * mebibyte`). */
function numberOf(node: ts.Expression, constants: Map<string, number>): number {
  if (ts.isNumericLiteral(node)) return Number(node.text.replaceAll('_', ''));
  if (ts.isIdentifier(node)) return constants.get(node.text) ?? Number.NaN;
  if (ts.isParenthesizedExpression(node)) return numberOf(node.expression, constants);
  if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.AsteriskToken) {
    return numberOf(node.left, constants) * numberOf(node.right, constants);
  }
  return Number.NaN;
}

/** Every `StreamDefinition` object the definitions file declares, as written. */
function definedStreams(codebase: Codebase): Stream[] {
  const file = codebase.parse(definitions);
  const constants = new Map<string, number>();
  const streams: Stream[] = [];
  for (const statement of file.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    for (const declaration of statement.declarationList.declarations) {
      const init = declaration.initializer;
      if (!init || !ts.isIdentifier(declaration.name)) continue;
      if (!ts.isObjectLiteralExpression(init)) {
        constants.set(declaration.name.text, numberOf(init, constants));
        continue;
      }
      const fields = new Map<string, ts.Expression>();
      for (const property of init.properties) {
        if (ts.isPropertyAssignment(property) && ts.isIdentifier(property.name))
          fields.set(property.name.text, property.initializer);
      }
      const text = (name: string) => {
        const value = fields.get(name);
        if (value && ts.isStringLiteralLike(value)) return value.text;
        if (value && ts.isArrayLiteralExpression(value))
          return value.elements.map((e) => (ts.isStringLiteralLike(e) ? e.text : '?')).join(', ');
        return '';
      };
      const number = (name: string) => {
        const value = fields.get(name);
        return value ? numberOf(value, constants) : Number.NaN;
      };
      if (!fields.has('name')) continue;
      streams.push({
        name: text('name'),
        subjects: text('subjects'),
        owner: text('owner'),
        maxAgeMs: number('maxAgeMs'),
        maxBytes: number('maxBytes'),
        duplicateWindowMs: number('duplicateWindowMs'),
        discard: text('discard'),
      });
    }
  }
  return streams;
}

const durations: Record<string, number> = { min: 60_000, day: 86_400_000, days: 86_400_000 };
const sizes: Record<string, number> = { MiB: 1024 ** 2, GiB: 1024 ** 3 };
const amount = (cell: string, units: Record<string, number>) => {
  const [count, unit] = cell.trim().split(/\s+/);
  return Number(count) * (units[unit ?? ''] ?? Number.NaN);
};

/**
 * docs/events.md, "Streams": the table gives every stream's subjects, owner, age, size, duplicate window
 * and what happens when full exactly as `eventStreams.ts` defines them, and leaves none out.
 */
export const streamsAsDefined: Claim = {
  name: 'the streams table of docs/events.md is the streams as defined',
  check(codebase: Codebase) {
    const problems: string[] = [];
    const table = /^\| Stream +\|.*\n\|[- |]+\n((?:\|.*\n)+)/m.exec(codebase.read(document))?.[1] ?? '';
    const rows = new Map(
      table
        .trim()
        .split('\n')
        .map((row) =>
          row
            .split('|')
            .slice(1, -1)
            .map((cell) => cell.trim()),
        )
        .map((cells) => [cells[0] as string, cells]),
    );
    const streams = definedStreams(codebase);
    if (streams.length === 0) return [`${definitions}: no stream definitions found`];
    for (const stream of streams) {
      const cells = rows.get(stream.name);
      if (!cells) {
        problems.push(`${document}: the streams table leaves out ${stream.name}`);
        continue;
      }
      rows.delete(stream.name);
      const [, subjects = '', owner = '', age = '', bytes = '', window = '', full = ''] = cells;
      const differs = (what: string, written: string, defined: string) =>
        problems.push(`${document}: ${stream.name}'s ${what} is written ${written}, defined ${defined}`);
      if (subjects.replaceAll('`', '') !== stream.subjects) differs('subjects', subjects, stream.subjects);
      if (!stream.owner.startsWith(owner)) differs('owner', owner, stream.owner);
      if (amount(age, durations) !== stream.maxAgeMs) differs('max age', age, `${stream.maxAgeMs} ms`);
      if (amount(bytes, sizes) !== stream.maxBytes) differs('max bytes', bytes, `${stream.maxBytes} bytes`);
      if (amount(window, durations) !== stream.duplicateWindowMs)
        differs('duplicate window', window, `${stream.duplicateWindowMs} ms`);
      if (full.startsWith('refuse') !== (stream.discard === 'new'))
        differs('when full', full, `discard ${stream.discard}`);
    }
    for (const name of rows.keys()) problems.push(`${document}: the streams table names ${name}, which is not defined`);
    return problems;
  },
};
