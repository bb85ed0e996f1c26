import { describe, expect, it } from 'vitest';
import { codebaseOf } from '../codebase.ts';
import { gatewayHasOneCompositionRoot } from './gatewayHasOneCompositionRoot.ts';

describe(gatewayHasOneCompositionRoot.name, () => {
  it('holds when only createGateway builds the HTTP shell', () => {
    const codebase = codebaseOf({
      'services/gateway-api/src/createGateway.ts': 'const app = buildGateway(options);',
      'services/gateway-api/test/teams.int.test.ts': 'await createGateway(options);',
    });
    expect(gatewayHasOneCompositionRoot.check(codebase)).toEqual([]);
  });

  it('fails on a test or a module that builds the shell alone', () => {
    const codebase = codebaseOf({
      'services/gateway-api/src/main.ts': 'buildGateway(options);',
      'services/gateway-api/test/console.int.test.ts': '\nbuildGateway(options);',
    });
    expect(gatewayHasOneCompositionRoot.check(codebase)).toEqual([
      'services/gateway-api/src/main.ts:1: builds the gateway without createGateway',
      'services/gateway-api/test/console.int.test.ts:2: builds the gateway without createGateway',
    ]);
  });
});
