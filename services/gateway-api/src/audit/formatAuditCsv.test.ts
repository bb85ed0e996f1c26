import type { AuditEntry } from '@orbital/contracts';
import { describe, expect, it } from 'vitest';
import { auditCsvHeader, auditCsvRow, csvCell } from './formatAuditCsv.ts';

describe('csvCell', () => {
  it('quotes every cell and doubles quotes', () => {
    expect(csvCell('plain')).toBe('"plain"');
    expect(csvCell('say "hi", then go\nhome')).toBe('"say ""hi"", then go\nhome"');
    expect(csvCell(null)).toBe('');
  });

  it('keeps text a spreadsheet would run as a formula from running', () => {
    for (const formula of ['=HYPERLINK("http://x")', '+1+1', '-2+3', '@SUM(A1)', '\tcmd', '\rcmd']) {
      expect(csvCell(formula).startsWith(`"'`)).toBe(true);
    }
    expect(csvCell('a=b')).toBe('"a=b"');
  });
});

describe('an audit CSV row', () => {
  it('has a cell for each column, details as JSON', () => {
    const entry: AuditEntry = {
      id: '9d6d3c8e-0a4b-4f7e-8d59-2f7f4a1c9b10',
      occurred_at: '2030-01-01T12:00:00.000Z',
      source: 'gateway-api',
      action: 'auth.login',
      actor: { kind: 'anonymous', id: null, email: '=cmd|x@example.org', name: null },
      target: { kind: 'user', id: null },
      team_id: null,
      outcome: 'failure',
      reason: 'invalid_credentials',
      source_ip: '203.0.113.7',
      request_id: 'r-1',
      details: { attempts: 3 },
    };
    expect(auditCsvHeader().split(',')).toHaveLength(16);
    expect(auditCsvRow(entry)).toBe(
      '"9d6d3c8e-0a4b-4f7e-8d59-2f7f4a1c9b10","2030-01-01T12:00:00.000Z","gateway-api","auth.login","failure",' +
        '"invalid_credentials","anonymous",,"\'=cmd|x@example.org",,"user",,,"203.0.113.7","r-1","{""attempts"":3}"\r\n',
    );
  });
});
