import { describe } from 'vitest';
import { itFinds } from '../claimFinds.ts';
import { oneAccessInterpreter } from './oneAccessInterpreter.ts';

const interpreter = {
  'libs/contracts/src/access/authorizeRequest.ts':
    "export function authorizeRequest(access, identity, request) { switch (access.users.kind) { case 'team': return 1; } }",
  'libs/bus/src/createBus.ts': 'authorizeRequest(def.access, identity, parsed.data);',
  'services/gateway-api/src/http/defineRoute.ts': 'authorizeRequest(access, identity, judged); app.route({ url });',
};

describe(oneAccessInterpreter.name, () => {
  itFinds(
    oneAccessInterpreter,
    'holds when bus.serve and defineRoute judge with authorizeRequest and routes go through defineRoute',
    {
      ...interpreter,
      'services/gateway-api/src/routes/streamRoutes.ts':
        'const teams = authorizeRequest(subject.access, identity, { query });',
      'services/gateway-api/src/routes/healthRoutes.ts': "app.get('/healthz', handler);",
    },
  );

  itFinds(
    oneAccessInterpreter,
    'fails on an access rule read by hand, a route registered around defineRoute, and a judge that stopped judging',
    {
      ...interpreter,
      'libs/bus/src/createBus.ts': '',
      'services/gateway-api/src/routes/teamRoutes.ts':
        "if (access.users?.kind === 'record_team') deny();\nswitch (rule.kind) { case 'member': break; }\napp.get('/api/teams', handler);\n",
    },
    [
      'services/gateway-api/src/routes/teamRoutes.ts:1: reads an access rule beside authorizeRequest',
      'services/gateway-api/src/routes/teamRoutes.ts:2: reads an access rule beside authorizeRequest',
      'services/gateway-api/src/routes/teamRoutes.ts:3: registers a route around defineRoute, so no access judges it',
      'libs/bus/src/createBus.ts no longer calls authorizeRequest',
    ],
  );
});
