import { describe, expect, it } from 'vitest';
import { codebaseOf } from '../codebase.ts';
import { everyOwnerKeepsAnAuditOutbox } from './everyOwnerKeepsAnAuditOutbox.ts';

describe(everyOwnerKeepsAnAuditOutbox.name, () => {
  it('holds when every service with migrations creates audit_outbox', () => {
    const codebase = codebaseOf({
      'services/settings/migrations/0003_audit.sql': 'CREATE TABLE audit_outbox (id uuid);',
      'services/jobs/src/app.ts': '',
    });
    expect(everyOwnerKeepsAnAuditOutbox.check(codebase)).toEqual([]);
  });

  it('fails on a schema owner without one', () => {
    const codebase = codebaseOf({ 'services/settings/migrations/0001_schema.sql': 'CREATE TABLE settings (k text);' });
    expect(everyOwnerKeepsAnAuditOutbox.check(codebase)).toEqual([
      'services/settings owns a schema without an audit_outbox table',
    ]);
  });
});
