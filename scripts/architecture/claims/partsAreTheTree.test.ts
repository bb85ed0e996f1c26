import { describe, expect, it } from 'vitest';
import { codebaseOf } from '../codebase.ts';
import { partsAreTheTree } from './partsAreTheTree.ts';

const document = (rows: string[], libs: string[]) =>
  [
    '| Part | Owns | Talks to |',
    '| ---- | ---- | -------- |',
    ...rows.map((row) => `| \`${row}\` | x | y |`),
    '',
    `The libraries: ${libs.map((lib) => `\`${lib}\` (what it does)`).join(', ')}.`,
    '',
    '| State | Status |',
    '| `idle` | x |',
  ].join('\n');

const tree = {
  'services/settings/package.json': '{}',
  'libs/bus/package.json': '{}',
  'libs/db/package.json': '{}',
  'satellite/package.json': '{}',
  'console/package.json': '{}',
};

describe(partsAreTheTree.name, () => {
  it('holds when the table names every part and the list every lib', () => {
    const codebase = codebaseOf({
      ...tree,
      'docs/architecture.md': document(['services/settings', 'satellite/', 'console/', 'libs/'], ['bus', 'db']),
    });
    expect(partsAreTheTree.check(codebase)).toEqual([]);
  });

  it('fails on a part or lib left out, and on one named that is not there', () => {
    const codebase = codebaseOf({
      ...tree,
      'services/embeddings/package.json': '{}',
      'docs/architecture.md': document(
        ['services/settings', 'services/mail', 'satellite/', 'console/', 'libs/'],
        ['bus', 'queue'],
      ),
    });
    expect(partsAreTheTree.check(codebase)).toEqual([
      'services/embeddings is not in the parts table',
      'the parts table names services/mail, which is not a part',
      'libs/db is not in the list of libraries',
      'the list of libraries names queue, which is not in libs/',
    ]);
  });
});
