import { describe, expect } from 'vitest';
import { itFinds } from '../claimFinds.ts';
import { partsTalkAsDrawn } from './partsTalkAsDrawn.ts';

describe(partsTalkAsDrawn.name, () => {
  itFinds(
    partsTalkAsDrawn,
    'holds when services use libs, the satellite HTTP, the console the contracts, and jobs no database',
    {
      'services/installations/src/app.ts': "import { createBus } from '@orbital/bus';\nimport { sql } from 'slonik';",
      'services/installations/test/stack.int.test.ts': "import { createApp } from '@orbital/settings/app';",
      'services/settings/package.json': '{}',
      'services/jobs/src/app.ts': "import { Queue } from 'bullmq';",
      'satellite/src/app.ts': "import Fastify from 'fastify';\nimport { x } from '@orbital/contracts';",
      'console/src/api.ts': "import type { X } from '@orbital/contracts';",
    },
  );

  itFinds(
    partsTalkAsDrawn,
    'fails on a service importing another, a satellite or console reaching infrastructure, and jobs with a database',
    {
      'services/installations/src/app.ts':
        "import { createSettingsApp } from '@orbital/settings/app';\nimport { x } from '../../settings/src/x.ts';",
      'services/settings/src/x.ts': '',
      'services/jobs/src/app.ts': "import pg from 'pg';",
      'services/jobs/migrations/0001_schema.sql': '',
      'satellite/src/app.ts': "import { connect } from '@nats-io/transport-node';",
      'console/src/api.ts': "import { createBus } from '@orbital/bus';\nimport { x } from '@orbital/logger';",
    },
    [
      expect.stringMatching(/^console\/src\/api\.ts:1: .*public API only/),
      expect.stringMatching(/^console\/src\/api\.ts:2: .*public API only/),
      expect.stringMatching(/^satellite\/src\/app\.ts:1: .*over HTTP only/),
      expect.stringMatching(/^services\/installations\/src\/app\.ts:1: .*imports another service/),
      expect.stringMatching(/^services\/installations\/src\/app\.ts:2: .*imports another service/),
      expect.stringMatching(/^services\/jobs\/src\/app\.ts:1: .*jobs has no database/),
      'services/jobs has migrations, but jobs has no database',
    ],
  );
});
