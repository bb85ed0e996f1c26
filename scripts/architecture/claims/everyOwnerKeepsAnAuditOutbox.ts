import type { Claim } from '../claim.ts';
import type { Codebase } from '../codebase.ts';

/**
 * "It writes the entry into the owner's own `audit_outbox` table (every database-owning schema has
 * one)": every service with migrations creates the table.
 */
export const everyOwnerKeepsAnAuditOutbox: Claim = {
  name: 'every database-owning service has an audit outbox',
  check(codebase: Codebase) {
    const owners = new Set(
      codebase.paths
        .filter((p) => /^services\/[^/]+\/migrations\/.*\.sql$/.test(p))
        .map((p) => p.split('/')[1] as string),
    );
    const problems: string[] = [];
    for (const service of owners) {
      const migrations = codebase.paths.filter((p) => p.startsWith(`services/${service}/migrations/`));
      if (!migrations.some((path) => /CREATE TABLE (?:IF NOT EXISTS )?audit_outbox\b/.test(codebase.read(path)))) {
        problems.push(`services/${service} owns a schema without an audit_outbox table`);
      }
    }
    return problems;
  },
};
