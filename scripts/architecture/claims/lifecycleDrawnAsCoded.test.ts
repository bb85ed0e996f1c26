import { describe } from 'vitest';
import { itFinds } from '../claimFinds.ts';
import { lifecycleDrawnAsCoded } from './lifecycleDrawnAsCoded.ts';

const code = {
  'satellite/src/runtime/lifecycle/lifecycleState.ts': [
    'export type Phase =',
    "  | { name: 'idle' }",
    '  /** Connecting. */',
    "  | { name: 'starting'; attempt: number }",
    "  | { name: 'running'; pid: number };",
    '',
  ].join('\n'),
};

const document = (edges: string[], rows: string[]) =>
  [
    '```mermaid',
    'stateDiagram-v2',
    '    [*] --> idle',
    ...edges.map((edge) => `    ${edge}`),
    '```',
    '',
    '| State | Status | Meaning |',
    '| ----- | ------ | ------- |',
    ...rows.map((row) => `| ${row} | \`online\` | x |`),
    '',
  ].join('\n');

describe(lifecycleDrawnAsCoded.name, () => {
  itFinds(lifecycleDrawnAsCoded, 'holds when the diagram and the table name exactly the coded states', {
    ...code,
    'docs/architecture.md': document(
      ['idle --> starting: start', 'starting --> running: opened, tools listed'],
      ['`idle`', '`starting`, `running`'],
    ),
  });

  itFinds(
    lifecycleDrawnAsCoded,
    'fails on a state left out, or one drawn that the code does not have',
    {
      ...code,
      'docs/architecture.md': document(['idle --> waking: start'], ['`idle`', '`starting`', '`running`', '`waking`']),
    },
    [
      'the diagram leaves out the state starting',
      'the diagram leaves out the state running',
      'the diagram names waking, not a state',
      'the table of states names waking, not a state',
    ],
  );
});
