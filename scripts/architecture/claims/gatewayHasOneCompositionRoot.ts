import ts from 'typescript';
import { type Claim, calledName, placeOf, typeScriptFiles, visit } from '../claim.ts';
import type { Codebase } from '../codebase.ts';

const root = 'services/gateway-api/src/createGateway.ts';

/**
 * "`createGateway` is the one composition root: `main.ts` and every test build the app through it ...
 * The HTTP shell it wraps (`buildGateway` in `app.ts`) is called by nothing else."
 */
export const gatewayHasOneCompositionRoot: Claim = {
  name: 'the gateway is built through createGateway only',
  check(codebase: Codebase) {
    const problems: string[] = [];
    for (const path of typeScriptFiles(codebase)) {
      if (path === root) continue;
      const file = codebase.parse(path);
      visit(file, (node) => {
        if (ts.isCallExpression(node) && calledName(node) === 'buildGateway') {
          problems.push(`${placeOf(file, node)}: builds the gateway without createGateway`);
        }
      });
    }
    return problems;
  },
};
