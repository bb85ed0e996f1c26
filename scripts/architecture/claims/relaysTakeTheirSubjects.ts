import ts from 'typescript';
import { type Claim, calledName, placeOf, visit } from '../claim.ts';
import type { Codebase } from '../codebase.ts';

/** The property names an object literal sets, following spreads of objects declared in the same file. */
function propertiesOf(literal: ts.ObjectLiteralExpression, file: ts.SourceFile): string[] {
  const names: string[] = [];
  for (const property of literal.properties) {
    if (ts.isSpreadAssignment(property)) {
      const spread = property.expression;
      const name = ts.isIdentifier(spread)
        ? spread.text
        : ts.isCallExpression(spread) && ts.isIdentifier(spread.expression)
          ? spread.expression.text
          : null;
      if (!name) continue;
      visit(file, (node) => {
        if (!ts.isVariableDeclaration(node) || !ts.isIdentifier(node.name) || node.name.text !== name) return;
        let init = node.initializer;
        if (init && ts.isArrowFunction(init) && ts.isParenthesizedExpression(init.body)) init = init.body.expression;
        if (init && ts.isObjectLiteralExpression(init)) names.push(...propertiesOf(init, file));
      });
    } else if (property.name && (ts.isIdentifier(property.name) || ts.isStringLiteral(property.name))) {
      names.push(property.name.text);
    }
  }
  return names;
}

/** Fewer than this many relaying routes means the check no longer recognises how routes are written. */
const expectedRelays = 40;

/**
 * "An HTTP route that relays a subject takes the subject's access, request and reply schemas from its
 * definition (`proxyRoute`)": no `proxyRoute(bus, subject, options)` call, and no row of a relay table
 * (`relay(subject, at, summary, options)`), states an access or a response of its own.
 */
export const relaysTakeTheirSubjects: Claim = {
  name: "every route relaying a subject takes the subject's access and reply",
  check(codebase: Codebase) {
    const problems: string[] = [];
    let relaying = 0;
    for (const path of codebase.paths.filter((p) => /^services\/gateway-api\/src\/.*\.ts$/.test(p))) {
      const file = codebase.parse(path);
      visit(file, (node) => {
        const name = ts.isCallExpression(node) ? calledName(node) : null;
        if (!ts.isCallExpression(node) || (name !== 'proxyRoute' && name !== 'relay')) return;
        relaying++;
        const options = node.arguments[name === 'proxyRoute' ? 2 : 3];
        if (!options || !ts.isObjectLiteralExpression(options)) {
          problems.push(`${placeOf(file, node)}: options not written in place`);
          return;
        }
        for (const own of propertiesOf(options, file)) {
          if (['access', 'accessRequest', 'response'].includes(own)) {
            problems.push(`${placeOf(file, options)}: a route relaying a subject states its own \`${own}\``);
          }
        }
      });
    }
    if (relaying < expectedRelays) {
      problems.push(
        `only ${relaying} relaying routes found (at least ${expectedRelays} expected): has the check lost its way?`,
      );
    }
    return problems;
  },
};
