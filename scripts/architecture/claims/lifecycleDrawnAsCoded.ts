import type { Claim } from '../claim.ts';
import type { Codebase } from '../codebase.ts';

const stateFile = 'satellite/src/runtime/lifecycle/lifecycleState.ts';

/**
 * "A satellite's upstream servers": the diagram and the table of states name exactly the states of
 * the lifecycle's phases (`Phase`, a union of `{ name: '...' }`), so a state added or
 * renamed in the code is drawn too.
 */
export const lifecycleDrawnAsCoded: Claim = {
  name: "the upstream lifecycle's diagram and table name the code's states",
  check(codebase: Codebase) {
    const problems: string[] = [];
    const source = codebase.read(stateFile);
    const union = /export type Phase =([\s\S]*?\});\n/.exec(source)?.[1] ?? '';
    const coded = new Set([...union.matchAll(/name: '(\w+)'/g)].map((m) => m[1] as string));
    if (coded.size === 0) return [`${stateFile}: no Phase union of { name: '...' } found`];
    const document = codebase.read('docs/architecture.md');
    const diagram = /```mermaid\nstateDiagram-v2\n([\s\S]*?)```/.exec(document)?.[1] ?? '';
    const drawn = new Set(
      [...diagram.matchAll(/^\s*(\S+) --> (\S+?):?(?:\s|$)/gm)].flatMap((m) => [m[1], m[2]]).filter((s) => s !== '[*]'),
    );
    const table = /^\| State +\| Status.*\n\|[- |]+\n((?:\|.*\n)+)/m.exec(document)?.[1] ?? '';
    const firstCells = table.split('\n').map((row) => row.split('|')[1] ?? '');
    const tabled = new Set(firstCells.flatMap((cell) => [...cell.matchAll(/`(\w+)`/g)].map((m) => m[1] as string)));
    for (const [where, named] of [
      ['the diagram', drawn],
      ['the table of states', tabled],
    ] as const) {
      for (const state of coded)
        if (!named.has(state as string)) problems.push(`${where} leaves out the state ${state}`);
      for (const state of named) if (!coded.has(state as string)) problems.push(`${where} names ${state}, not a state`);
    }
    return problems;
  },
};
