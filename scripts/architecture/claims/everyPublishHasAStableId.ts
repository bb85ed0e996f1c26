import ts from 'typescript';
import { type Claim, calledName, isTest, placeOf, typeScriptFiles, visit } from '../claim.ts';
import type { Codebase } from '../codebase.ts';

const publishers = new Set(['publishEvent', 'publishEventParts', 'publishData']);

/** Where the publish functions are defined and pass their caller's options on. */
const definitions = 'libs/bus/src/publishEvent.ts';

/** The options argument of each publish function. */
const optionsAt: Record<string, number> = { publishEvent: 3, publishEventParts: 3, publishData: 3 };

/**
 * "Each message carries a stable id (`Nats-Msg-Id`), so a retried publish is stored once": every
 * publish of the platform (not its tests and benches) names `msgId` in options written in place.
 */
export const everyPublishHasAStableId: Claim = {
  name: 'every published event carries a stable id',
  check(codebase: Codebase) {
    const problems: string[] = [];
    for (const path of typeScriptFiles(codebase)) {
      if (isTest(path) || path === definitions || path.startsWith('bench/')) continue;
      const file = codebase.parse(path);
      visit(file, (node) => {
        if (!ts.isCallExpression(node)) return;
        const name = calledName(node);
        if (!name || !publishers.has(name)) return;
        const options = node.arguments[optionsAt[name] as number];
        const named =
          options &&
          ts.isObjectLiteralExpression(options) &&
          options.properties.some((p) => p.name && ts.isIdentifier(p.name) && p.name.text === 'msgId');
        if (!named) problems.push(`${placeOf(file, node)}: ${name} without a msgId, so a retry is stored twice`);
      });
    }
    return problems;
  },
};
