import { describe, expect, it } from 'vitest';
import { findEmptyRequiredSettings } from './findEmptyRequiredSettings.ts';

const definitions = [
  { key: 'global.send_mail', type: 'boolean', required: false },
  { key: 'smtp.host', type: 'string', required: true, onlyWhen: 'global.send_mail' },
  { key: 'smtp.username', type: 'string', required: false, onlyWhen: 'global.send_mail' },
  { key: 'smtp.password', type: 'string', required: true, onlyWhen: 'smtp.username' },
  { key: 'global.page_url', type: 'string', required: true },
] as const;

const values = (entries: Record<string, string>) => new Map(Object.entries(entries));

describe('findEmptyRequiredSettings', () => {
  it('leaves out the mail server while mail is off', () => {
    expect(
      findEmptyRequiredSettings(definitions, values({ 'global.send_mail': 'false', 'global.page_url': '' })),
    ).toEqual(['global.page_url']);
  });

  it('reports the host once mail is on, and the password only when a user name is set', () => {
    expect(
      findEmptyRequiredSettings(definitions, values({ 'global.send_mail': 'yes', 'global.page_url': 'x' })),
    ).toEqual(['smtp.host']);
    expect(
      findEmptyRequiredSettings(
        definitions,
        values({ 'global.send_mail': 'true', 'smtp.host': 'mail', 'smtp.username': 'orbital', 'global.page_url': 'x' }),
      ),
    ).toEqual(['smtp.password']);
  });

  it('does not report the password of a user name that only matters while mail is off', () => {
    expect(
      findEmptyRequiredSettings(
        definitions,
        values({ 'global.send_mail': 'off', 'smtp.username': 'orbital', 'global.page_url': 'x' }),
      ),
    ).toEqual([]);
  });
});
