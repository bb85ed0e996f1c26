import { describe } from 'vitest';
import { itFinds } from '../claimFinds.ts';
import { testsSitWhereTheirKindBelongs } from './testsSitWhereTheirKindBelongs.ts';

describe(testsSitWhereTheirKindBelongs.name, () => {
  itFinds(testsSitWhereTheirKindBelongs, 'holds with unit tests beside their code and the others in test/', {
    'libs/bus/src/identityTokens.test.ts': '',
    'libs/bus/test/createBus.int.test.ts': '',
    'satellite/test/app.int.test.ts': '',
    'scripts/formatLogLine.test.ts': '',
    'test/platform.e2e.test.ts': '',
  });

  itFinds(
    testsSitWhereTheirKindBelongs,
    'fails on an integration test in src/, a unit test in test/, and a root unit test in test/',
    {
      'satellite/src/app.int.test.ts': '',
      'libs/bus/test/identityTokens.test.ts': '',
      'test/formatLogLine.test.ts': '',
    },
    [
      "libs/bus/test/identityTokens.test.ts: a unit test away from the code it tests (libs/bus's src/)",
      "satellite/src/app.int.test.ts: an integration or end-to-end test outside satellite's test/",
      "test/formatLogLine.test.ts: a unit test away from the code it tests (the root's scripts/)",
    ],
  );
});
