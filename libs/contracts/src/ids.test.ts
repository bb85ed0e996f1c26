import { describe, expect, it } from 'vitest';
import { canonicalId, teamIdField, uuidField } from './ids.ts';

const issued = '3f0c1e52-9d4b-4c1a-8f6e-2b7d9a1c5e30';

describe('ids in requests', () => {
  it('take a UUID in either case and hand it on in lower case', () => {
    expect(uuidField().parse(issued.toUpperCase())).toBe(issued);
    expect(uuidField().parse(issued)).toBe(issued);
    expect(teamIdField.parse(issued.toUpperCase())).toBe(issued);
  });

  it('refuse what is no UUID with the message given, and leave a team id of another shape as written', () => {
    const refused = uuidField({ error: 'must be a team id (UUID)' }).safeParse('Team-1');
    expect(refused.error?.issues.map((i) => i.message)).toEqual(['must be a team id (UUID)']);
    expect(teamIdField.parse('Team-1')).toBe('Team-1');
    expect(teamIdField.safeParse('').success).toBe(false);
    expect(canonicalId('Inst-1')).toBe('Inst-1');
  });

  it('give ids their canonical form: a UUID in lower case, anything else as written', () => {
    expect(canonicalId(issued)).toBe(issued);
    expect(canonicalId(issued.toUpperCase())).toBe(issued);
    expect(canonicalId(`${issued.slice(0, 8).toUpperCase()}${issued.slice(8)}`)).toBe(issued);
    expect(canonicalId(`${issued.toUpperCase()}0`)).toBe(`${issued.toUpperCase()}0`);
    expect(canonicalId('team-1')).toBe('team-1');
    expect(canonicalId('ÉQUIPE')).toBe('ÉQUIPE');
  });
});
