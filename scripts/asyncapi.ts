/**
 * Writes docs/asyncapi.json from the event catalogue of libs/contracts: `npm run asyncapi`.
 * With `--check` it writes nothing and exits 1 when the checked-in file is not current.
 */
import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { buildAsyncApiDocument } from '@orbital/contracts';

const target = new URL('../docs/asyncapi.json', import.meta.url);
const document = buildAsyncApiDocument();

if (process.argv.includes('--check')) {
  const current = JSON.parse(await readFile(target, 'utf8').catch(() => 'null'));
  if (!isDeepStrictEqual(current, document)) {
    console.error('docs/asyncapi.json is out of date: run npm run asyncapi and commit it');
    process.exit(1);
  }
  console.log('docs/asyncapi.json is current');
} else {
  await writeFile(target, `${JSON.stringify(document, null, 2)}\n`);
  // In the repository's own format, so `biome check` (part of npm test) stays green.
  const biome = fileURLToPath(new URL('../node_modules/.bin/biome', import.meta.url));
  execFileSync(biome, ['format', '--write', fileURLToPath(target)], { stdio: 'ignore' });
  console.log('wrote docs/asyncapi.json');
}
