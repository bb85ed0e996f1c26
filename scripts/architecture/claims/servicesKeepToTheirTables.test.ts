import { describe } from 'vitest';
import { itFinds } from '../claimFinds.ts';
import { servicesKeepToTheirTables } from './servicesKeepToTheirTables.ts';

const owners = {
  'services/gateway-api/migrations/0001_schema.sql': "COMMENT ON SCHEMA identity IS 'gateway-api';",
  'services/settings/migrations/0001_schema.sql': "COMMENT ON SCHEMA settings IS 'settings';",
};
const listing = 'PostgreSQL holds one schema per owning service (`settings`, `identity`).';

describe(servicesKeepToTheirTables.name, () => {
  itFinds(
    servicesKeepToTheirTables,
    'holds when each service names only its own schema and the document lists the schemas',
    {
      ...owners,
      'docs/architecture.md': listing,
      'services/gateway-api/src/identity/identityStore.ts': 'sql`SELECT id FROM identity.users`',
      'services/settings/src/db/settingsQueries.ts': 'sql`SELECT key FROM settings`',
      'services/settings/test/settings.int.test.ts': 'SELECT * FROM identity.users',
    },
  );

  itFinds(
    servicesKeepToTheirTables,
    "fails on a query of another service's table and on a schema list that differs from the owners",
    {
      ...owners,
      'docs/architecture.md': 'PostgreSQL holds one schema per owning service (`settings`, `registry`).',
      'services/settings/src/db/people.ts': 'sql`SELECT email FROM identity.users\n  JOIN identity.memberships`',
    },
    [
      "schema identity is not in the document's list",
      'the document lists schema registry, which no service owns',
      'services/settings/src/db/people.ts:1: reads identity.users, a table of another service',
      'services/settings/src/db/people.ts:2: reads identity.memberships, a table of another service',
    ],
  );
});
