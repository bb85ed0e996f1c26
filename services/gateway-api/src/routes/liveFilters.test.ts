import type { AuditEntry } from '@orbital/contracts';
import { describe, expect, it } from 'vitest';
import { matchesAuditFilter } from './liveFilters.ts';

const entry: AuditEntry = {
  id: '9d6d3c8e-0a4b-4f7e-8d59-2f7f4a1c9b10',
  occurred_at: '2030-01-01T12:00:00.000Z',
  source: 'installations',
  action: 'installation.created',
  actor: { kind: 'user', id: 'u-1', email: 'Ada@Example.org', name: 'Ada' },
  target: { kind: 'installation', id: 'i-1' },
  team_id: 'team-1',
  outcome: 'success',
  reason: null,
  source_ip: '203.0.113.7',
  request_id: null,
  details: {},
};

describe('matchesAuditFilter', () => {
  it('applies each filter as the log query does', () => {
    expect(matchesAuditFilter(entry, {})).toBe(true);
    expect(matchesAuditFilter(entry, { actor: 'ada@example.ORG' })).toBe(true);
    expect(matchesAuditFilter(entry, { actor: 'u-1' })).toBe(true);
    expect(matchesAuditFilter(entry, { actor: 'u-2' })).toBe(false);
    expect(matchesAuditFilter(entry, { action: 'installation.*' })).toBe(true);
    expect(matchesAuditFilter(entry, { action: 'install.*' })).toBe(false);
    expect(matchesAuditFilter(entry, { action: 'installation.deleted' })).toBe(false);
    expect(matchesAuditFilter(entry, { team_id: 'team-2' })).toBe(false);
    expect(matchesAuditFilter(entry, { outcome: 'failure' })).toBe(false);
    expect(matchesAuditFilter(entry, { source: 'settings' })).toBe(false);
    expect(matchesAuditFilter(entry, { target_kind: 'installation', target_id: 'i-1' })).toBe(true);
    expect(matchesAuditFilter(entry, { from: '2030-01-01T12:00:00.000Z', to: '2030-01-01T12:00:00.001Z' })).toBe(true);
    expect(matchesAuditFilter(entry, { to: '2030-01-01T12:00:00.000Z' })).toBe(false);
  });
});
