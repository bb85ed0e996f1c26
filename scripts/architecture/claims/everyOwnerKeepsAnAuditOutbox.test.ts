import { describe } from 'vitest';
import { itFinds } from '../claimFinds.ts';
import { everyOwnerKeepsAnAuditOutbox } from './everyOwnerKeepsAnAuditOutbox.ts';

describe(everyOwnerKeepsAnAuditOutbox.name, () => {
  itFinds(everyOwnerKeepsAnAuditOutbox, 'holds when every service with migrations creates audit_outbox', {
    'services/settings/migrations/0003_audit.sql': 'CREATE TABLE audit_outbox (id uuid);',
    'services/jobs/src/app.ts': '',
  });

  itFinds(
    everyOwnerKeepsAnAuditOutbox,
    'fails on a schema owner without one',
    { 'services/settings/migrations/0001_schema.sql': 'CREATE TABLE settings (k text);' },
    ['services/settings owns a schema without an audit_outbox table'],
  );
});
