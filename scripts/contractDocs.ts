/**
 * Writes the generated references of libs/contracts' catalogue: docs/asyncapi.json (events and
 * broadcasts) and docs/subjects.md (request/reply subjects). `npm run docs:contracts`; with `--check`
 * it writes nothing and exits 1 when a checked-in file is not current.
 */
import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { buildAsyncApiDocument } from './contractReference/buildAsyncApiDocument.ts';
import { buildSubjectReference } from './contractReference/buildSubjectReference.ts';

const biome = fileURLToPath(new URL('../node_modules/.bin/biome', import.meta.url));

/** In the repository's own format, so `biome check` (part of npm test) stays green. */
function formatJson(text: string, path: string): string {
  return execFileSync(biome, ['format', `--stdin-file-path=${path}`], { input: text, encoding: 'utf8' });
}

const targets = [
  {
    file: 'docs/asyncapi.json',
    text: () => formatJson(`${JSON.stringify(buildAsyncApiDocument(), null, 2)}\n`, 'x.json'),
  },
  { file: 'docs/subjects.md', text: buildSubjectReference },
];

const check = process.argv.includes('--check');
let stale = false;
for (const target of targets) {
  const url = new URL(`../${target.file}`, import.meta.url);
  const wanted = target.text();
  if (check) {
    const current = await readFile(url, 'utf8').catch(() => null);
    if (current !== wanted) {
      console.error(`${target.file} is out of date: run npm run docs:contracts and commit it`);
      stale = true;
    }
  } else {
    await writeFile(url, wanted);
    console.log(`wrote ${target.file}`);
  }
}
if (stale) process.exit(1);
