import { describe } from 'vitest';
import { itFinds } from '../claimFinds.ts';
import { logFieldsAreSnakeCase } from './logFieldsAreSnakeCase.ts';

describe(logFieldsAreSnakeCase.name, () => {
  itFinds(logFieldsAreSnakeCase, 'holds when every field a log call writes is snake_case', {
    'services/jobs/src/app.ts': "logger.info({ schedule: name, every_ms: everyMs, err }, 'schedule in place');",
    'satellite/src/app.ts': "request.log.error({ err: error }, 'failed');",
    'services/jobs/test/jobs.int.test.ts': "logger.info({ tickAt }, 'a test may log as it likes');",
  });

  itFinds(
    logFieldsAreSnakeCase,
    'fails on a camelCase field, written out or shorthand',
    {
      'satellite/src/app.ts':
        "request.log.error({ err: error, reqId: request.id }, 'failed');\nlog.warn({ retryInMs }, 'retry');\n",
    },
    [
      'satellite/src/app.ts:1: log field reqId is not snake_case',
      'satellite/src/app.ts:2: log field retryInMs is not snake_case',
    ],
  );
});
