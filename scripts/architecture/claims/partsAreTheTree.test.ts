import { describe } from 'vitest';
import { itFinds } from '../claimFinds.ts';
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
  itFinds(partsAreTheTree, 'holds when the table names every part and the list every lib', {
    ...tree,
    'docs/architecture.md': document(['services/settings', 'satellite/', 'console/', 'libs/'], ['bus', 'db']),
  });

  itFinds(
    partsAreTheTree,
    'fails on a part or lib left out, and on one named that is not there',
    {
      ...tree,
      'services/embeddings/package.json': '{}',
      'docs/architecture.md': document(
        ['services/settings', 'services/mail', 'satellite/', 'console/', 'libs/'],
        ['bus', 'queue'],
      ),
    },
    [
      'services/embeddings is not in the parts table',
      'the parts table names services/mail, which is not a part',
      'libs/db is not in the list of libraries',
      'the list of libraries names queue, which is not in libs/',
    ],
  );
});
