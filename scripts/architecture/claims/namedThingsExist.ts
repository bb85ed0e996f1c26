import type { Claim } from '../claim.ts';
import type { Codebase } from '../codebase.ts';

/** The documents whose every named thing must exist: a renamed file or function leaves them stale. */
const documents = ['docs/architecture.md', 'docs/events.md'];

/** Where a named thing may be defined or used: code, queries, manifests and package files, not prose. */
const isCode = (path: string) =>
  /\.(tsx?|sql|ya?ml|json)$/.test(path) && !path.startsWith('docs/') && !path.endsWith('package-lock.json');

const httpRoute = /^(?:GET|POST|PUT|PATCH|DELETE) (\/\S*)$/;
const npmScript = /^npm run ([\w:-]+)/;
const fileLike = /^[\w.-]+(?:\/[\w.-]*)*$/;
const extension = /\.(?:tsx?|md|json|sql|ya?ml)$/;

/**
 * Sections that record measurements: they name what the code was when measured (a query tried and not
 * kept), so what they name may be gone.
 */
const records = /^## Benchmark/;

/** The lines of a Markdown text that describe the code as it is, as [line number, text]. */
function currentLinesOf(text: string): [number, string][] {
  const lines: [number, string][] = [];
  let record = false;
  text.split('\n').forEach((line, index) => {
    if (line.startsWith('## ')) record = records.test(line);
    if (!record) lines.push([index + 1, line]);
  });
  return lines;
}

/** Inline code outside fenced blocks (examples and diagrams are not names). */
function inlineCodeOf(lines: [number, string][]): { token: string; line: number }[] {
  const found: { token: string; line: number }[] = [];
  let fenced = false;
  lines.forEach(([index, line]) => {
    if (line.trimStart().startsWith('```')) fenced = !fenced;
    if (fenced) return;
    for (const match of line.matchAll(/`([^`]+)`/g)) found.push({ token: match[1] as string, line: index });
  });
  return found;
}

/** A path as a document names it: from the root, from its part (`src/oauth`) or a file's own name. */
function pathExists(codebase: Codebase, path: string): boolean {
  const wanted = path.replace(/\/$/, '');
  if (codebase.exists(wanted)) return true;
  return codebase.paths.some((p) => p.endsWith(`/${wanted}`) || p.includes(`/${wanted}/`));
}

/**
 * Every file, folder, npm script, README section and name in code (a function, a field, a subject, an
 * environment variable) that the documents name in backticks or link to exists in the tree: a document
 * that names what is gone sends its reader looking for nothing.
 */
export const namedThingsExist: Claim = {
  name: 'every file, script, section and name the documents mention exists',
  check(codebase: Codebase) {
    const problems: string[] = [];
    const code = codebase.paths
      .filter(isCode)
      .map((path) => codebase.read(path))
      .join('\n');
    const scripts = Object.keys(
      (JSON.parse(codebase.read('package.json')) as { scripts?: Record<string, string> }).scripts ?? {},
    );
    for (const document of documents.filter((path) => codebase.exists(path))) {
      const lines = currentLinesOf(codebase.read(document));
      const text = lines.map(([, line]) => line).join('\n');
      const folder = document.split('/').slice(0, -1).join('/');
      for (const { token, line } of inlineCodeOf(lines)) {
        const at = `${document}:${line}`;
        const script = npmScript.exec(token);
        const route = httpRoute.exec(token);
        if (script) {
          if (!scripts.includes(script[1] as string)) problems.push(`${at}: no npm script ${script[1]}`);
        } else if (route) {
          const path = (route[1] as string).replace(/[?*].*$/, '');
          if (path.length > 1 && !code.includes(path)) problems.push(`${at}: no route ${token}`);
        } else if (fileLike.test(token) && (token.includes('/') || extension.test(token))) {
          if (!pathExists(codebase, token) && !pathExists(codebase, `${folder}/${token}`)) {
            problems.push(`${at}: no file or folder ${token}`);
          }
        } else {
          const name = (token.split(/[\s(:<*{?|[]/)[0] as string).replace(/\.+$/, '');
          // `table.column` names each part where the column is declared.
          const parts = /^[a-z_]+\.[a-z_]+$/.test(name) && !code.includes(name) ? name.split('.') : [name];
          if (name.length >= 3 && /^[\w./@-]+$/.test(name) && parts.some((part) => !code.includes(part))) {
            problems.push(`${at}: \`${name}\` is nowhere in the code`);
          }
        }
      }
      for (const match of text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
        const target = match[1] as string;
        if (/^[a-z]+:/.test(target)) continue;
        const path = target.startsWith('/') ? target.slice(1) : `${folder}/${target}`.replace(/[^/]+\/\.\.\//g, '');
        if (!pathExists(codebase, path)) problems.push(`${document}: links to ${target}, which does not exist`);
      }
      for (const match of text.matchAll(/`?([\w./-]*README\.md)`?, "([^"]+)"/g)) {
        const [, readme, written] = match as unknown as [string, string, string];
        const section = written.replace(/\s+/g, ' ');
        const headings = codebase.exists(readme)
          ? codebase
              .read(readme)
              .split('\n')
              // A heading, or the bold lead of a paragraph or list item (`- **Recent clients** ...`).
              .filter((l) => /^(?:#|\s*(?:- )?\*\*)/.test(l))
          : [];
        if (!headings.some((heading) => heading.toLowerCase().includes(section.toLowerCase()))) {
          problems.push(`${document}: ${readme} has no section "${section}"`);
        }
      }
    }
    return problems;
  },
};
