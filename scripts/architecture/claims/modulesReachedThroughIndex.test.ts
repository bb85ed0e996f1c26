import { describe } from 'vitest';
import { itFinds } from '../claimFinds.ts';
import { modulesReachedThroughIndex } from './modulesReachedThroughIndex.ts';

const src = 'services/gateway-api/src';

describe(modulesReachedThroughIndex.name, () => {
  itFinds(
    modulesReachedThroughIndex,
    'holds when code outside a module imports its index.ts, and the module its own files',
    {
      [`${src}/createGateway.ts`]: "import { createIdentityModule } from './identity/index.ts';",
      [`${src}/identity/index.ts`]: "export * from './createIdentityModule.ts';",
      [`${src}/identity/createIdentityModule.ts`]: "import { x } from '../oauth/index.ts';",
    },
  );

  itFinds(
    modulesReachedThroughIndex,
    'fails on an import past the index.ts, static or dynamic',
    {
      [`${src}/routes/teamRoutes.ts`]:
        "import type { IdentityStore } from '../identity/identityStore.ts';\nconst o = await import('../oauth/oauthStore.ts');\n",
    },
    [
      `${src}/routes/teamRoutes.ts:1: reaches into identity past its index.ts (../identity/identityStore.ts)`,
      `${src}/routes/teamRoutes.ts:2: reaches into oauth past its index.ts (../oauth/oauthStore.ts)`,
    ],
  );
});
