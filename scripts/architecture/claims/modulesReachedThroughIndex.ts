import { type Claim, importsOf, isTest, placeOf, resolveImport } from '../claim.ts';
import type { Codebase } from '../codebase.ts';

const gateway = 'services/gateway-api/src/';

/** The modules of gateway-api with a folder and a public face of their own. */
const modules = ['identity', 'oauth', 'sso'];

/**
 * Files a module drives itself, which may take a type from inside it: the mail module sends what
 * identity queues and reads identity's store for the addresses, and identity builds it.
 */
const driven = new Map([['services/gateway-api/src/mail/serveSatelliteOfflineNotice.ts', 'identity']]);

/**
 * "Identity and OAuth are modules with their own folders (`src/identity`, `src/oauth`); routes reach
 * them only through what their `index.ts` exports": outside a module's folder, gateway-api imports the
 * module's `index.ts` and nothing else of it.
 */
export const modulesReachedThroughIndex: Claim = {
  name: "gateway-api's modules are reached only through their index.ts",
  check(codebase: Codebase) {
    const problems: string[] = [];
    for (const path of codebase.paths.filter((p) => p.startsWith(gateway) && /\.ts$/.test(p) && !isTest(p))) {
      const file = codebase.parse(path);
      for (const { module, node } of importsOf(file)) {
        if (!module.startsWith('.')) continue;
        const target = resolveImport(path, module);
        for (const name of modules) {
          const folder = `${gateway}${name}/`;
          if (!target.startsWith(folder) || path.startsWith(folder)) continue;
          if (target === `${folder}index.ts` || driven.get(path) === name) continue;
          problems.push(`${placeOf(file, node)}: reaches into ${name} past its index.ts (${module})`);
        }
      }
    }
    return problems;
  },
};
