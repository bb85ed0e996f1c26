import { describe, expect, it } from 'vitest';
import { checkRequestOrigin } from './checkRequestOrigin.ts';

const policy = { allowedHosts: ['satellite.example.com'], allowedOrigins: ['https://app.example.com'] };

describe('checkRequestOrigin', () => {
  it('accepts loopback and configured hosts, with or without a port', () => {
    expect(checkRequestOrigin({ host: 'localhost:3001' }, policy).ok).toBe(true);
    expect(checkRequestOrigin({ host: '127.0.0.1' }, policy).ok).toBe(true);
    expect(checkRequestOrigin({ host: '[::1]:3001' }, policy).ok).toBe(true);
    expect(checkRequestOrigin({ host: 'Satellite.Example.com:443' }, policy).ok).toBe(true);
  });

  it('refuses a host name the satellite is not meant to be reached by (DNS rebinding)', () => {
    expect(checkRequestOrigin({ host: 'attacker.example:3001' }, policy)).toEqual({
      ok: false,
      reason: 'Host header not allowed',
    });
    expect(checkRequestOrigin({}, policy).ok).toBe(false);
  });

  it('accepts configured and loopback origins only', () => {
    expect(checkRequestOrigin({ host: 'localhost', origin: 'https://app.example.com' }, policy).ok).toBe(true);
    expect(checkRequestOrigin({ host: 'localhost', origin: 'http://localhost:5173' }, policy).ok).toBe(true);
    expect(checkRequestOrigin({ host: 'localhost', origin: 'https://evil.example' }, policy).ok).toBe(false);
    expect(checkRequestOrigin({ host: 'localhost', origin: 'null' }, policy).ok).toBe(false);
  });

  it('lets `*` accept anything', () => {
    expect(
      checkRequestOrigin({ host: 'x', origin: 'https://y' }, { allowedHosts: ['*'], allowedOrigins: ['*'] }).ok,
    ).toBe(true);
  });
});
