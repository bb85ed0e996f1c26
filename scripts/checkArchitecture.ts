/**
 * Reads the claims of docs/architecture.md that code can prove or disprove, against the code, and fails
 * the build when one no longer holds. Each claim below quotes what the document says and checks it the
 * way a reviewer would; a claim that changes must change here and in the document together. Run:
 * `npm run check:architecture` (part of `npm run check`).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';

const root = resolve(import.meta.dirname, '..');
const skipped = new Set(['node_modules', '.git', 'dist', 'coverage']);

function filesUnder(dir: string, accept: (path: string) => boolean): string[] {
  const found: string[] = [];
  for (const name of readdirSync(dir)) {
    if (skipped.has(name)) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...filesUnder(path, accept));
    else if (accept(path)) found.push(path);
  }
  return found;
}

const rel = (path: string) => relative(root, path);
const isTest = (path: string) => /\.test\.tsx?$/.test(path) || /\/test\//.test(rel(path));
const parts = ['libs', 'services', 'satellite', 'console', 'scripts', 'bench'].map((part) => join(root, part));
const sources = parts.flatMap((dir) => filesUnder(dir, (path) => /\.tsx?$/.test(path)));
const parse = (path: string) => ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);

function visit(node: ts.Node, each: (node: ts.Node) => void): void {
  each(node);
  node.forEachChild((child) => visit(child, each));
}

function calledName(call: ts.CallExpression): string | null {
  const callee = call.expression;
  if (ts.isIdentifier(callee)) return callee.text;
  if (ts.isPropertyAccessExpression(callee)) return callee.name.text;
  return null;
}

const failures: string[] = [];
const claim = (name: string, problems: string[]) => {
  if (problems.length === 0) {
    console.log(`holds: ${name}`);
    return;
  }
  failures.push(`${name}:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
};

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

// "An HTTP route that relays a subject takes the subject's access, request and reply schemas from its
// definition (`proxyRoute`)": no proxyRoute call states an access or a response of its own.
{
  const problems: string[] = [];
  let relaying = 0;
  for (const path of sources.filter((p) => p.includes('/services/gateway-api/src/'))) {
    const file = parse(path);
    visit(file, (node) => {
      // proxyRoute(bus, subject, options), or a row of a relayTable: relay(subject, at, summary, options).
      const name = ts.isCallExpression(node) ? calledName(node) : null;
      if (!ts.isCallExpression(node) || (name !== 'proxyRoute' && name !== 'relay')) return;
      relaying++;
      const options = node.arguments[name === 'proxyRoute' ? 2 : 3];
      if (!options || !ts.isObjectLiteralExpression(options)) {
        problems.push(
          `${rel(path)}:${file.getLineAndCharacterOfPosition(node.pos).line + 1}: options not written in place`,
        );
        return;
      }
      const own = propertiesOf(options, file).filter((name) => ['access', 'accessRequest', 'response'].includes(name));
      for (const name of own) {
        const line = file.getLineAndCharacterOfPosition(options.pos).line + 1;
        problems.push(`${rel(path)}:${line}: a route relaying a subject states its own \`${name}\``);
      }
    });
  }
  if (relaying < 40) problems.push(`only ${relaying} proxyRoute calls found: has the check lost its way?`);
  claim("every route relaying a subject takes the subject's access and reply", problems);
}

// "Publishing ... take[s] the definition and check[s] the payload": JetStream and core NATS are published
// to by libs/bus alone, and bytes that skip the payload check (publishData) only where the document says
// why: a parked or replayed message keeps the bytes it was stored with.
{
  const republishers = new Set([
    'libs/bus/src/publishEvent.ts',
    'libs/bus/src/parkMessage.ts',
    'libs/bus/src/listParked.ts',
  ]);
  // The one announcement the document names as published from parts no check saw, and why.
  const named = new Map([
    ['services/installations/src/consumers/storeEventRuns.ts', 'evt.installation.request_logged'],
  ]);
  const document = readFileSync(join(root, 'docs/architecture.md'), 'utf8');
  const problems: string[] = [];
  for (const [path, event] of named) {
    if (!document.includes(event))
      problems.push(`${path} publishes ${event} unchecked, and the document does not say so`);
  }
  for (const path of sources.filter((p) => !isTest(p))) {
    const file = parse(path);
    visit(file, (node) => {
      if (!ts.isCallExpression(node)) return;
      const name = calledName(node);
      const at = `${rel(path)}:${file.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
      if (name === 'publishData' && !republishers.has(rel(path)) && !named.has(rel(path))) {
        problems.push(`${at}: publishes bytes no event definition checked (publishData)`);
      }
      const onClient = ts.isPropertyAccessExpression(node.expression);
      if (name === 'publish' && onClient && !rel(path).startsWith('libs/bus/')) {
        problems.push(`${at}: publishes to NATS around libs/bus`);
      }
    });
  }
  claim('nothing publishes a payload its definition did not check', problems);
}

// "The specification itself lives outside this repository; everything needed to work on the code is
// here": no file points the reader at a document they do not have.
{
  const outside = /\b(?:spec\.md|DESIGN\.md|CONVENTIONS\.md|shared\/spec|Improvement \d+)\b/;
  const problems: string[] = [];
  const documents = [root, ...parts, join(root, 'docs'), join(root, 'deploy')].flatMap((dir) =>
    dir === root
      ? readdirSync(root)
          .filter((name) => name.endsWith('.md'))
          .map((name) => join(root, name))
      : filesUnder(dir, (path) => /\.(tsx?|md|ya?ml|json|sh)$/.test(path) && !path.endsWith('package-lock.json')),
  );
  for (const path of documents) {
    if (rel(path) === 'scripts/checkArchitecture.ts') continue;
    readFileSync(path, 'utf8')
      .split('\n')
      .forEach((line, index) => {
        if (outside.test(line)) problems.push(`${rel(path)}:${index + 1}: ${line.trim().slice(0, 100)}`);
      });
  }
  claim('no reference to a document outside the repository', problems);
}

// "`createGateway` is the one composition root: `main.ts` and every test build the app through it", and the
// HTTP shell it wraps is called by nothing else.
{
  const problems: string[] = [];
  for (const path of sources) {
    if (rel(path) === 'services/gateway-api/src/createGateway.ts') continue;
    const file = parse(path);
    visit(file, (node) => {
      if (ts.isCallExpression(node) && calledName(node) === 'buildGateway') {
        problems.push(
          `${rel(path)}:${file.getLineAndCharacterOfPosition(node.getStart()).line + 1}: builds the gateway without createGateway`,
        );
      }
    });
  }
  claim('the gateway is built through createGateway only', problems);
}

// "Unit tests (`*.test.ts`, no I/O) sit beside the code they test, in the part's `src/` (the root's scripts
// keep theirs beside them in `scripts/`); integration and end-to-end tests sit in the part's `test/`
// folder, those of the whole platform or of the root's scripts in the root `test/`."
{
  const workspace = /^(?:libs\/[^/]+|services\/[^/]+|satellite|console)\//;
  const problems: string[] = [];
  for (const path of filesUnder(root, (p) => /\.test\.tsx?$/.test(p)).map(rel)) {
    const part = workspace.exec(path)?.[0] ?? '';
    const inPart = path.slice(part.length);
    const where = part === '' ? 'the root' : part.slice(0, -1);
    if (/\.(?:int|e2e)\.test\.tsx?$/.test(path)) {
      if (!inPart.startsWith('test/'))
        problems.push(`${path}: an integration or end-to-end test outside ${where}'s test/`);
    } else if (part !== '' ? !inPart.startsWith('src/') : inPart.startsWith('test/')) {
      problems.push(`${path}: a unit test away from the code it tests (${where}'s ${part ? 'src/' : 'scripts/'})`);
    }
  }
  claim('every test sits where its kind belongs', problems);
}

if (failures.length > 0) {
  console.error(`\ndocs/architecture.md claims what the code does not do:\n\n${failures.join('\n\n')}`);
  process.exit(1);
}
