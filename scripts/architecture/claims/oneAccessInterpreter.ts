import ts from 'typescript';
import { type Claim, calledName, isTest, placeOf, typeScriptFiles, visit } from '../claim.ts';
import type { Codebase } from '../codebase.ts';

/** Where access is judged: `bus.serve` for every subject, `defineRoute` for every route. */
const judges = new Set(['libs/bus/src/createBus.ts', 'services/gateway-api/src/http/defineRoute.ts']);

/** Where routes are registered: through defineRoute, and the operational endpoints that serve no caller's data. */
const registrars = new Set([
  'services/gateway-api/src/http/defineRoute.ts',
  'services/gateway-api/src/routes/healthRoutes.ts',
  'services/gateway-api/src/routes/metricsRoutes.ts',
]);

/** The kinds of a people's access rule (`UserAccess`): only the interpreter reads them. */
const accessKinds = new Set(['signed_in', 'global', 'team', 'record_team', 'member']);

/** Describe access to readers (the subject reference, the OpenAPI document) and judge nothing. */
const describers = new Set(['buildSubjectReference.ts', 'describeOperation.ts']);

const methods = new Set(['get', 'post', 'put', 'patch', 'delete', 'head', 'options', 'all', 'route']);

const isKind = (node: ts.Node) => ts.isPropertyAccessExpression(node) && node.name.text === 'kind';
const isAccessKind = (node: ts.Node | undefined) =>
  !!node && ts.isStringLiteralLike(node) && accessKinds.has(node.text);

/** `x.kind === 'record_team'`, or `case 'member':` in a `switch (x.kind)`: an access rule read by hand. */
function readsAccessKind(node: ts.Node): boolean {
  if (ts.isBinaryExpression(node)) {
    const equality = [ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsEqualsToken];
    return (
      equality.includes(node.operatorToken.kind) &&
      ((isKind(node.left) && isAccessKind(node.right)) || (isKind(node.right) && isAccessKind(node.left)))
    );
  }
  if (ts.isCaseClause(node) && isAccessKind(node.expression)) {
    return isKind(node.parent.parent.expression);
  }
  return false;
}

/** `app.get('/path', ...)` or `app.route({url, ...})`: a route registered by hand. */
function registersRoute(node: ts.CallExpression): boolean {
  const name = calledName(node);
  const first = node.arguments[0];
  return (
    !!name &&
    methods.has(name) &&
    ts.isPropertyAccessExpression(node.expression) &&
    !!first &&
    ((ts.isStringLiteralLike(first) && first.text.startsWith('/')) ||
      (ts.isObjectLiteralExpression(first) &&
        first.properties.some((p) => p.name && ts.isIdentifier(p.name) && p.name.text === 'url')))
  );
}

/**
 * "Routes that serve no single subject declare their access in the same vocabulary, and one
 * interpreter (`authorizeRequest`) judges every route and every subject": `bus.serve` and `defineRoute`
 * call it, no code beside it reads the kinds of an access rule, and gateway-api registers no route but
 * through `defineRoute`.
 */
export const oneAccessInterpreter: Claim = {
  name: 'one interpreter judges every route and every subject',
  check(codebase: Codebase) {
    const problems: string[] = [];
    const files = typeScriptFiles(codebase).filter((p) => !isTest(p));
    const interpreter = files.find((path) => /\bfunction authorizeRequest\b/.test(codebase.read(path)));
    if (!interpreter) return ['no function authorizeRequest'];
    const home = interpreter.slice(0, interpreter.lastIndexOf('/') + 1);
    const judging = new Set<string>();
    for (const path of files) {
      const file = codebase.parse(path);
      const describer = describers.has(path.slice(path.lastIndexOf('/') + 1));
      visit(file, (node) => {
        if (ts.isCallExpression(node) && calledName(node) === 'authorizeRequest') judging.add(path);
        if (!path.startsWith(home) && !describer && readsAccessKind(node)) {
          problems.push(`${placeOf(file, node)}: reads an access rule beside authorizeRequest`);
        }
        if (
          ts.isCallExpression(node) &&
          path.startsWith('services/gateway-api/src/') &&
          !registrars.has(path) &&
          registersRoute(node)
        ) {
          problems.push(`${placeOf(file, node)}: registers a route around defineRoute, so no access judges it`);
        }
      });
    }
    for (const judge of judges) {
      if (!judging.has(judge)) problems.push(`${judge} no longer calls authorizeRequest`);
    }
    return problems;
  },
};
