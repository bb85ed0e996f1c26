import { describe, expect, it } from 'vitest';
import { codebaseOf } from '../codebase.ts';
import { modulesReachedThroughIndex } from './modulesReachedThroughIndex.ts';

const src = 'services/gateway-api/src';

describe(modulesReachedThroughIndex.name, () => {
  it('holds when code outside a module imports its index.ts, and the module its own files', () => {
    const codebase = codebaseOf({
      [`${src}/createGateway.ts`]: "import { createIdentityModule } from './identity/index.ts';",
      [`${src}/identity/index.ts`]: "export * from './createIdentityModule.ts';",
      [`${src}/identity/createIdentityModule.ts`]: "import { x } from '../oauth/index.ts';",
    });
    expect(modulesReachedThroughIndex.check(codebase)).toEqual([]);
  });

  it('fails on an import past the index.ts, static or dynamic', () => {
    const codebase = codebaseOf({
      [`${src}/routes/teamRoutes.ts`]:
        "import type { IdentityStore } from '../identity/identityStore.ts';\nconst o = await import('../oauth/oauthStore.ts');\n",
    });
    expect(modulesReachedThroughIndex.check(codebase)).toEqual([
      `${src}/routes/teamRoutes.ts:1: reaches into identity past its index.ts (../identity/identityStore.ts)`,
      `${src}/routes/teamRoutes.ts:2: reaches into oauth past its index.ts (../oauth/oauthStore.ts)`,
    ]);
  });
});
