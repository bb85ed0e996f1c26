import { type Claim, importsOf, isTest, placeOf, resolveImport } from '../claim.ts';
import type { Codebase } from '../codebase.ts';

const infrastructure = /^(?:@nats-io\/|@orbital\/(?:bus|db|audit|sse)$|pg$|slonik|ioredis$|bullmq$)/;
const database = /^(?:@orbital\/db$|pg$|slonik|@slonik\/)/;

/** What a part's own code (its tests may start whatever they test against) may not import, and why. */
function refusalOf(path: string, module: string, services: string[]): string | null {
  const service = /^services\/([^/]+)\//.exec(path)?.[1];
  if (service) {
    const other = services.find(
      (name) => name !== service && (module === `@orbital/${name}` || module.startsWith(`@orbital/${name}/`)),
    );
    const reached = module.startsWith('.') ? /^services\/([^/]+)\//.exec(resolveImport(path, module))?.[1] : undefined;
    if (other || (reached && reached !== service)) return 'a service imports another service: they talk over NATS';
    if (service === 'jobs' && database.test(module)) return 'jobs has no database';
  }
  if (path.startsWith('satellite/') && infrastructure.test(module)) {
    return 'a satellite talks to gateway-api over HTTP only';
  }
  if (path.startsWith('console/') && (infrastructure.test(module) || /^@orbital\/(?!contracts$)/.test(module))) {
    return 'the console uses the public API only';
  }
  return null;
}

/**
 * The "Talks to" column of the parts table: services talk to each other over NATS, never through each
 * other's code; the satellite reaches the backend over HTTP only (no NATS, database or Redis client);
 * the console only through the public API (it shares the contracts' schemas, nothing else); jobs holds
 * the schedules only, with no database.
 */
export const partsTalkAsDrawn: Claim = {
  name: 'each part talks only to what the parts table says',
  check(codebase: Codebase) {
    const services = [
      ...new Set(codebase.paths.map((p) => /^services\/([^/]+)\//.exec(p)?.[1]).filter((s) => s !== undefined)),
    ];
    const problems: string[] = [];
    for (const path of codebase.paths.filter((p) => /^(services|satellite|console)\/.*\.tsx?$/.test(p) && !isTest(p))) {
      const file = codebase.parse(path);
      for (const { module, node } of importsOf(file)) {
        const refusal = refusalOf(path, module, services);
        if (refusal) problems.push(`${placeOf(file, node)}: imports ${module}, but ${refusal}`);
      }
    }
    if (codebase.exists('services/jobs/migrations'))
      problems.push('services/jobs has migrations, but jobs has no database');
    return problems;
  },
};
