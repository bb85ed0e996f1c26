import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ProcessName } from '@orbital/contracts';
import { describe, expect, it } from 'vitest';
import { discoverDefinitions } from './discoverDefinitions.ts';

/**
 * A built-in setting that nothing reads promises what the platform does not do. Each definition names
 * the processes that read it (`readBy`); this test looks for the key, as a quoted string, in the code of
 * each of them (tests and the definitions themselves left out), and checks that the README's table of
 * settings lists every key with the same readers. A new setting passes only once the process it names
 * reads it, and is documented.
 */
const repository = fileURLToPath(new URL('../../../../', import.meta.url));
const sourceOf: Record<ProcessName, string> = {
  'gateway-api': 'services/gateway-api/src',
  settings: 'services/settings/src',
  'satellite-registry': 'services/satellite-registry/src',
  installations: 'services/installations/src',
  jobs: 'services/jobs/src',
};

const notReadYet = new Set<string>();

function codeFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'definitions' ? [] : codeFiles(path);
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [path] : [];
  });
}

const codeOf = (process: ProcessName) =>
  codeFiles(join(repository, sourceOf[process]))
    .map((file) => readFileSync(file, 'utf8'))
    .join('\n');

const readsKey = (code: string, key: string) => code.includes(`'${key}'`) || code.includes(`"${key}"`);

const definitions = (await discoverDefinitions(fileURLToPath(new URL('.', import.meta.url)))).flatMap(
  (module) => module.settings,
);

describe('every built-in setting is read', () => {
  it.each(definitions.map((d) => [d.key, d.readBy] as const))('%s is read by %j', (key, readers) => {
    for (const process of readers) {
      if (notReadYet.has(key)) {
        expect(readsKey(codeOf(process), key), `${key} is read now: remove it from notReadYet`).toBe(false);
      } else {
        expect(readsKey(codeOf(process), key), `${process} does not read ${key}`).toBe(true);
      }
    }
  });

  it("matches the README's table of settings, key by key and reader by reader", () => {
    const readme = readFileSync(join(repository, 'services/settings/README.md'), 'utf8');
    const start = readme.indexOf('## Built-in settings');
    const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
    const rows = [...section.matchAll(/^\| `([a-z0-9_.-]+)` +\| ([a-z, -]+?) +\|/gm)].map((m) => [
      m[1],
      (m[2] ?? '').split(',').map((p) => p.trim()),
    ]);
    expect(Object.fromEntries(rows)).toEqual(Object.fromEntries(definitions.map((d) => [d.key, d.readBy])));
  });
});
