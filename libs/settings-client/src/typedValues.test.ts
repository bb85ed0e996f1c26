import { AppError } from '@orbital/errors';
import { describe, expect, it } from 'vitest';
import { createSettingsReader } from './createSettingsReader.ts';
import {
  groupValues,
  parseBoolean,
  parseEmail,
  parseInteger,
  parseJson,
  parseNumber,
  parseUrl,
} from './typedValues.ts';

describe('typed setting reads', () => {
  it('reads the boolean words of the spec, case-insensitively', () => {
    for (const word of ['true', '1', 'yes', 'on', 'enabled', 'TRUE', ' Yes '])
      expect(parseBoolean('k', word)).toBe(true);
    for (const word of ['false', '0', 'no', 'off', 'disabled', 'Off']) expect(parseBoolean('k', word)).toBe(false);
    expect(() => parseBoolean('k', 'maybe')).toThrow(AppError);
  });

  it('parses numbers, integers, URLs, e-mails and JSON, refusing bad text without echoing it', () => {
    expect(parseNumber('k', '1.5')).toBe(1.5);
    expect(parseInteger('smtp.port', '587')).toBe(587);
    expect(() => parseInteger('smtp.port', '58.7')).toThrow(/not a valid integer/);
    expect(() => parseNumber('k', '')).toThrow();
    expect(parseUrl('k', 'https://example.org/cb').hostname).toBe('example.org');
    expect(() => parseUrl('k', 'javascript:alert(1)')).toThrow();
    expect(parseEmail('k', 'ops@example.org')).toBe('ops@example.org');
    const error = (() => {
      try {
        parseEmail('smtp.from_email', 's3cret-not-an-email');
        return undefined;
      } catch (e) {
        return e as AppError;
      }
    })();
    expect(error?.message).not.toContain('s3cret');
    expect(parseJson('k', '{"a":[1]}')).toEqual({ a: [1] });
    expect(() => parseJson('k', '{')).toThrow(/JSON/);
  });

  it('keys group values with or without the shared prefix', () => {
    const values = { 'repohost.oauth.client_id': 'id', 'repohost.oauth.enabled': 'false' };
    expect(groupValues(values, { withPrefix: false })).toEqual({ client_id: 'id', enabled: 'false' });
    expect(groupValues(values, { withPrefix: true })).toEqual(values);
  });

  it('fails a required read of a missing or empty setting, and splits arrays', async () => {
    const store: Record<string, string> = { 'a.empty': '  ', 'a.list': 'x, y,,z', 'a.flag': 'on' };
    const reader = createSettingsReader({ get: async (k) => store[k], group: async () => store });
    await expect(reader.required('a.missing')).rejects.toMatchObject({ code: 'not_found' });
    await expect(reader.required('a.empty')).rejects.toMatchObject({ code: 'validation_failed' });
    expect(await reader.array('a.list')).toEqual(['x', 'y', 'z']);
    expect(await reader.boolean('a.flag')).toBe(true);
    expect(await reader.boolean('a.missing', false)).toBe(false);
  });
});
