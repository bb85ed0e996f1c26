/**
 * `npm run deploy:rehearse`: the deployment rehearsed on this machine, as deploy/README.md describes it.
 * Each overlay of deploy/kubernetes is given its secrets by `npm run credentials`, rendered
 * as `kubectl apply -k` renders it, and run: every workload as local processes with exactly what the
 * rendered objects give them, the engines standing in for the cluster's, then the day-one path walked to
 * a tool call through the satellites' Service; deploy/compose.yaml likewise (`compose`). `-- production` (or
 * another name, or `compose`) rehearses only that one.
 */
import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { rehearseCompose } from './rehearseCompose.ts';
import { rehearseKubernetes } from './rehearseKubernetes.ts';

const root = resolve(import.meta.dirname, '../..');
const log = (line: string) => console.log(line);
const overlaysDir = join(root, 'deploy/kubernetes/overlays');
const all = readdirSync(overlaysDir).filter((name) => statSync(join(overlaysDir, name)).isDirectory());
const chosen = process.argv.slice(2).filter((arg) => !arg.startsWith('-'));
const targets = chosen.length > 0 ? chosen : [...all, 'compose'];

let failures = 0;
for (const overlay of targets) {
  const started = Date.now();
  try {
    if (overlay === 'compose') await rehearseCompose({ root, log });
    else await rehearseKubernetes(overlay, { root, log });
    log(`${overlay}: rehearsed in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  } catch (error) {
    failures += 1;
    console.error(`${overlay}: the rehearsal failed: ${(error as Error).message}`);
  }
}
log(`${targets.length - failures} passed, ${failures} failed`);
process.exit(failures > 0 ? 1 : 0);
