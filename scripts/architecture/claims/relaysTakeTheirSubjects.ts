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

/** Fewer than this many routes serving a subject means the check no longer recognises how routes are written. */
const expectedRelays = 40;

/** Where a route's access and its subject are tied together: the one `defineRoute` that may call a subject. */
const subjectRouteFile = 'services/gateway-api/src/http/proxyRoute.ts';

/**
 * The functions of a file that write a route serving a subject, and whether the route relays it (its reply
 * is the answer) or serves it in its own way: `proxyRoute` and `subjectRoute`, and the rows of the file's
 * tables (`const relay = relayTable(bus, tags)`, `const serve = subjectTable(bus, tags)`).
 */
function routeWritersOf(file: ts.SourceFile): Map<string, { kind: 'relay' | 'serve'; optionsAt: number }> {
  const writers = new Map<string, { kind: 'relay' | 'serve'; optionsAt: number }>([
    ['proxyRoute', { kind: 'relay', optionsAt: 2 }],
    ['subjectRoute', { kind: 'serve', optionsAt: 2 }],
    ['relay', { kind: 'relay', optionsAt: 3 }],
  ]);
  visit(file, (node) => {
    if (!ts.isVariableDeclaration(node) || !ts.isIdentifier(node.name) || !node.initializer) return;
    if (!ts.isCallExpression(node.initializer)) return;
    const table = calledName(node.initializer);
    if (table === 'relayTable') writers.set(node.name.text, { kind: 'relay', optionsAt: 3 });
    if (table === 'subjectTable') writers.set(node.name.text, { kind: 'serve', optionsAt: 3 });
  });
  return writers;
}

/**
 * "An HTTP route that relays a subject takes the subject's access, request and reply schemas from its
 * definition (`proxyRoute`) ... A route that serves a subject but answers in its own way (`subjectRoute`)
 * takes the subject's access just the same": no such call, and no row of their tables, states an access
 * of its own (nor, for a relay, a response); and no other route (`defineRoute`) calls a subject, which
 * would judge the caller by an access of its own.
 */
export const relaysTakeTheirSubjects: Claim = {
  name: "every route serving a subject takes the subject's access (and a relaying one its reply)",
  check(codebase: Codebase) {
    const problems: string[] = [];
    let serving = 0;
    for (const path of codebase.paths.filter((p) => /^services\/gateway-api\/src\/.*\.ts$/.test(p))) {
      const file = codebase.parse(path);
      const writers = routeWritersOf(file);
      visit(file, (node) => {
        if (!ts.isCallExpression(node)) return;
        const name = calledName(node);
        if (name === 'defineRoute' && path !== subjectRouteFile) {
          visit(node, (inner) => {
            if (ts.isCallExpression(inner) && isBusRequest(inner)) {
              problems.push(`${placeOf(file, inner)}: a route calls a subject beside an access of its own`);
            }
          });
          return;
        }
        const writer = name ? writers.get(name) : undefined;
        if (!writer) return;
        serving++;
        const options = node.arguments[writer.optionsAt];
        if (!options || !ts.isObjectLiteralExpression(options)) {
          problems.push(`${placeOf(file, node)}: options not written in place`);
          return;
        }
        const forbidden =
          writer.kind === 'relay' ? ['access', 'accessRequest', 'response'] : ['access', 'accessRequest'];
        for (const own of propertiesOf(options, file)) {
          if (forbidden.includes(own)) {
            problems.push(`${placeOf(file, options)}: a route serving a subject states its own \`${own}\``);
          }
        }
      });
    }
    if (serving < expectedRelays) {
      problems.push(
        `only ${serving} relaying routes found (at least ${expectedRelays} expected): has the check lost its way?`,
      );
    }
    return problems;
  },
};

/** `bus.request(...)`: a subject asked. */
function isBusRequest(call: ts.CallExpression): boolean {
  const callee = call.expression;
  return (
    ts.isPropertyAccessExpression(callee) &&
    callee.name.text === 'request' &&
    ts.isIdentifier(callee.expression) &&
    callee.expression.text === 'bus'
  );
}
