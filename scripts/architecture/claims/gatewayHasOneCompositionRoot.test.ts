import { describe } from 'vitest';
import { itFinds } from '../claimFinds.ts';
import { gatewayHasOneCompositionRoot } from './gatewayHasOneCompositionRoot.ts';

describe(gatewayHasOneCompositionRoot.name, () => {
  itFinds(gatewayHasOneCompositionRoot, 'holds when only createGateway builds the HTTP shell', {
    'services/gateway-api/src/createGateway.ts': 'const app = buildGateway(options);',
    'services/gateway-api/test/teams.int.test.ts': 'await createGateway(options);',
  });

  itFinds(
    gatewayHasOneCompositionRoot,
    'fails on a test or a module that builds the shell alone',
    {
      'services/gateway-api/src/main.ts': 'buildGateway(options);',
      'services/gateway-api/test/console.int.test.ts': '\nbuildGateway(options);',
    },
    [
      'services/gateway-api/src/main.ts:1: builds the gateway without createGateway',
      'services/gateway-api/test/console.int.test.ts:2: builds the gateway without createGateway',
    ],
  );
});
