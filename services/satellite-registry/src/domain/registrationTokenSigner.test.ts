import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { createRegistrationTokenSigner } from './registrationTokenSigner.ts';

const secret = 'a-registration-secret-of-enough-length-0123456789';
let current = new Date('2026-01-01T00:00:00Z');
const signer = createRegistrationTokenSigner({ secret, now: () => current });
const tokenId = '9a4d2d1e-7f0c-4c55-9a53-1c2b8d0f4e11';

describe('registration token signer', () => {
  it('round-trips the scope, team and id of a team token', async () => {
    current = new Date('2026-01-01T00:00:00Z');
    const token = await signer.sign({ tokenId, scope: 'team', teamId: 'team-1' }, new Date('2026-01-01T01:00:00Z'));
    expect(await signer.verify(token)).toEqual({ ok: true, claims: { tokenId, scope: 'team', teamId: 'team-1' } });
  });

  it('reports expiry by the injected clock', async () => {
    current = new Date('2026-01-01T00:00:00Z');
    const token = await signer.sign({ tokenId, scope: 'global', teamId: null }, new Date('2026-01-01T01:00:00Z'));
    current = new Date('2026-01-01T01:00:01Z');
    expect(await signer.verify(token)).toEqual({ ok: false, problem: 'expired' });
  });

  it('refuses another secret, a changed payload, an unsigned token and a JWT for another audience', async () => {
    current = new Date('2026-01-01T00:00:00Z');
    const other = createRegistrationTokenSigner({ secret: `${secret}-other`, now: () => current });
    const foreign = await other.sign({ tokenId, scope: 'global', teamId: null }, new Date('2026-01-02T00:00:00Z'));
    expect(await signer.verify(foreign)).toEqual({ ok: false, problem: 'invalid' });

    const token = await signer.sign({ tokenId, scope: 'team', teamId: 'team-1' }, new Date('2026-01-02T00:00:00Z'));
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const widened = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), scope: 'global' }),
    ).toString('base64url');
    expect(await signer.verify(`${header}.${widened}.${signature}`)).toEqual({ ok: false, problem: 'invalid' });

    const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${payload}.`;
    expect(await signer.verify(none)).toEqual({ ok: false, problem: 'invalid' });

    const session = await new SignJWT({ scope: 'global' })
      .setProtectedHeader({ alg: 'HS256' })
      .setJti(tokenId)
      .setIssuer('orbital-registry')
      .setAudience('sessions')
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(secret));
    expect(await signer.verify(session)).toEqual({ ok: false, problem: 'invalid' });
    expect(await signer.verify('not a jwt')).toEqual({ ok: false, problem: 'invalid' });
  });
});
