import { describe, expect, it } from 'vitest';
import { acceptSettingValue } from './acceptSettingValue.ts';

const text = { type: 'string', required: false } as const;
const number = { type: 'number', required: false } as const;
const boolean = { type: 'boolean', required: false } as const;

describe('acceptSettingValue', () => {
  it('accepts what typed reads accept and names what they would refuse', () => {
    expect(acceptSettingValue(number, '587')).toEqual({ text: '587' });
    expect(acceptSettingValue(number, 'five')).toEqual({ problem: 'must be a number' });
    expect(acceptSettingValue(boolean, 'Yes')).toEqual({ text: 'Yes' });
    expect(acceptSettingValue(boolean, 'maybe')).toEqual({ problem: 'must be true or false' });
    expect(acceptSettingValue(text, ' anything ')).toEqual({ text: ' anything ' });
  });

  it('takes a JSON boolean for a boolean setting and a JSON number for a number setting, nothing crosswise', () => {
    expect(acceptSettingValue(boolean, false)).toEqual({ text: 'false' });
    expect(acceptSettingValue(number, 2525)).toEqual({ text: '2525' });
    expect(acceptSettingValue(number, true)).toEqual({ problem: 'must be a number' });
    expect(acceptSettingValue(boolean, 1)).toEqual({ problem: 'must be true or false' });
    expect(acceptSettingValue(text, true)).toEqual({ problem: 'must be text' });
    expect(acceptSettingValue(undefined, true)).toEqual({ text: 'true' });
  });

  it('refuses an empty required value and lets an optional one be emptied', () => {
    expect(acceptSettingValue({ ...text, required: true }, '  ')).toEqual({ problem: 'is required' });
    expect(acceptSettingValue(number, '')).toEqual({ text: '' });
    expect(acceptSettingValue({ ...text, format: 'url' }, '')).toEqual({ text: '' });
  });

  it('checks URLs, e-mail addresses, ports, host names and enumerations', () => {
    const url = { ...text, format: 'url' } as const;
    expect(acceptSettingValue(url, 'not a url')).toEqual({
      problem: 'must be a URL starting with http:// or https://',
    });
    expect(acceptSettingValue(url, 'javascript:alert(1)').problem).toBeDefined();
    expect(acceptSettingValue(url, ' https://orbital.example.org/ ')).toEqual({ text: 'https://orbital.example.org/' });
    const email = { ...text, format: 'email' } as const;
    expect(acceptSettingValue(email, 'ops@example.org')).toEqual({ text: 'ops@example.org' });
    expect(acceptSettingValue(email, 'ops at example').problem).toBe('must be an e-mail address');
    const port = { ...number, format: 'port' } as const;
    expect(acceptSettingValue(port, '465')).toEqual({ text: '465' });
    expect(acceptSettingValue(port, 587)).toEqual({ text: '587' });
    for (const bad of ['0', '65536', '58.7', 'smtp']) {
      expect(acceptSettingValue(port, bad).problem).toBe('must be a port number from 1 to 65535');
    }
    const host = { ...text, format: 'hostname' } as const;
    for (const good of ['smtp.example.org', 'localhost', '127.0.0.1', '::1']) {
      expect(acceptSettingValue(host, good)).toEqual({ text: good });
    }
    for (const bad of ['smtp://example.org', 'example.org:587', 'a b', '-bad-.org']) {
      expect(acceptSettingValue(host, bad).problem).toMatch(/host name/);
    }
    const choice = { ...text, options: ['starttls', 'tls'] };
    expect(acceptSettingValue(choice, 'tls')).toEqual({ text: 'tls' });
    expect(acceptSettingValue(choice, 'ssl')).toEqual({ problem: 'must be one of: starttls, tls' });
  });

  it('never quotes the refused value', () => {
    const refused = acceptSettingValue({ ...text, format: 'email' }, 's3cret-not-an-address');
    expect(JSON.stringify(refused)).not.toContain('s3cret');
  });
});
