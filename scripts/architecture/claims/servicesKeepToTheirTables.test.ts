import { describe, expect, it } from 'vitest';
import { codebaseOf } from '../codebase.ts';
import { servicesKeepToTheirTables } from './servicesKeepToTheirTables.ts';

const owners = {
  'services/gateway-api/migrations/0001_schema.sql': "COMMENT ON SCHEMA identity IS 'gateway-api';",
  'services/settings/migrations/0001_schema.sql': "COMMENT ON SCHEMA settings IS 'settings';",
};
const listing = 'PostgreSQL holds one schema per owning service (`settings`, `identity`).';

describe(servicesKeepToTheirTables.name, () => {
  it('holds when each service names only its own schema and the document lists the schemas', () => {
    const codebase = codebaseOf({
      ...owners,
      'docs/architecture.md': listing,
      'services/gateway-api/src/identity/identityStore.ts': 'sql`SELECT id FROM identity.users`',
      'services/settings/src/db/settingsQueries.ts': 'sql`SELECT key FROM settings`',
      'services/settings/test/settings.int.test.ts': 'SELECT * FROM identity.users',
    });
    expect(servicesKeepToTheirTables.check(codebase)).toEqual([]);
  });

  it("fails on a query of another service's table and on a schema list that differs from the owners", () => {
    const codebase = codebaseOf({
      ...owners,
      'docs/architecture.md': 'PostgreSQL holds one schema per owning service (`settings`, `registry`).',
      'services/settings/src/db/people.ts': 'sql`SELECT email FROM identity.users\n  JOIN identity.memberships`',
    });
    expect(servicesKeepToTheirTables.check(codebase)).toEqual([
      "schema identity is not in the document's list",
      'the document lists schema registry, which no service owns',
      'services/settings/src/db/people.ts:1: reads identity.users, a table of another service',
      'services/settings/src/db/people.ts:2: reads identity.memberships, a table of another service',
    ]);
  });
});
