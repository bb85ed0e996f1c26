import ts from 'typescript';
import { type Claim, calledName, isTest, placeOf, typeScriptFiles, visit } from '../claim.ts';
import type { Codebase } from '../codebase.ts';

/** Republish a parked or replayed message with the bytes it was stored with, as the document says. */
const republishers = new Set([
  'libs/bus/src/publishEvent.ts',
  'libs/bus/src/parkMessage.ts',
  'libs/bus/src/listParked.ts',
]);

/** The one announcement the document names as published from parts no check saw, and why. */
const named = new Map([['services/installations/src/consumers/storeEventRuns.ts', 'evt.installation.request_logged']]);

/**
 * "Publishing ... take[s] the definition and check[s] the payload": JetStream and core NATS are
 * published to by libs/bus alone, and bytes that skip the payload check (`publishData`) only where the
 * document says why.
 */
export const publishesAreChecked: Claim = {
  name: 'nothing publishes a payload its definition did not check',
  check(codebase: Codebase) {
    const document = codebase.read('docs/architecture.md');
    const problems: string[] = [];
    for (const [path, event] of named) {
      if (!document.includes(event))
        problems.push(`${path} publishes ${event} unchecked, and the document does not say so`);
    }
    for (const path of typeScriptFiles(codebase).filter((p) => !isTest(p))) {
      const file = codebase.parse(path);
      visit(file, (node) => {
        if (!ts.isCallExpression(node)) return;
        const name = calledName(node);
        if (name === 'publishData' && !republishers.has(path) && !named.has(path)) {
          problems.push(`${placeOf(file, node)}: publishes bytes no event definition checked (publishData)`);
        }
        if (name === 'publish' && ts.isPropertyAccessExpression(node.expression) && !path.startsWith('libs/bus/')) {
          problems.push(`${placeOf(file, node)}: publishes to NATS around libs/bus`);
        }
      });
    }
    return problems;
  },
};
