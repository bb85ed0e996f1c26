import { registrySubjects } from '@orbital/contracts';
import { stackForFile } from '@orbital/testing/stackForFile';
import { SignJWT } from 'jose';
import { describe, expect, it, vi } from 'vitest';
import {
  activate,
  call,
  createToken,
  globalAdmin,
  heartbeatBody,
  registerSatellite,
  registerWith,
  satelliteBody,
  startSatelliteStack,
  teamMember,
} from './satelliteHarness.ts';

const stack = stackForFile(() => startSatelliteStack());

const refusal = (reason: string) => ({
  success: false,
  error: {
    code: expect.any(String),
    message: expect.any(String),
    instructions: expect.any(String),
    details: { reason },
  },
});

/**
 * Registration and API keys over HTTP: status codes, refusal envelopes, the key cache and the allowlist.
 * How the registry issues and consumes tokens and keys is tested in the registry's own folder.
 */
describe('revoked registration tokens', () => {
  it('answer 401 with the reason when a satellite registers with one', async () => {
    const token = await createToken(stack, { scope: 'team', team_id: 'team-r' });
    const revoked = await stack.adminBus.request(
      registrySubjects.revokeToken,
      { target: { scope: 'team', team_id: 'team-r' }, token_id: token.id },
      { identity: teamMember('team-r', 'team_admin') },
    );
    expect(revoked.state).toBe('revoked');
    const response = await registerWith(stack, token.authorization, satelliteBody('revoked'));
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject(refusal('revoked'));
  });
});

describe('POST /api/satellites/register', () => {
  it('issues an API key once, stores only its Argon2 hash, and starts inactive', async () => {
    const token = await createToken(stack, { scope: 'team', team_id: 'team-a' });
    const response = await registerWith(
      stack,
      token.authorization,
      satelliteBody('edge-1', { satellite_url: 'https://edge-1.example.com' }),
    );
    expect(response.statusCode).toBe(201);
    const { data } = response.json();
    expect(data).toEqual({
      satellite_id: expect.any(String),
      api_key: expect.stringMatching(/^sk_[0-9a-f]{24}\.[A-Za-z0-9_-]{43}$/),
      status: 'inactive',
      satellite_type: 'team',
      team_id: 'team-a',
    });
    const secret = data.api_key.split('.')[1];
    const { rows } = await stack.db.query('SELECT * FROM satellites WHERE id = $1', [data.satellite_id]);
    expect(rows[0].api_key_hash).toMatch(/^\$argon2id\$/);
    expect(JSON.stringify(rows[0])).not.toContain(secret);
    expect(rows[0]).toMatchObject({ status: 'inactive', satellite_type: 'team', team_id: 'team-a' });
  });

  it('refuses a replayed token with 401 and instructions', async () => {
    const token = await createToken(stack, { scope: 'global' });
    expect((await registerWith(stack, token.authorization, satelliteBody('first'))).statusCode).toBe(201);
    const replay = await registerWith(stack, token.authorization, satelliteBody('second'));
    expect(replay.statusCode).toBe(401);
    expect(replay.json()).toMatchObject(refusal('already_used'));
  });

  it.each([
    ['no Authorization header', undefined, 'missing'],
    ['a header without the service_satellite_ prefix', 'Bearer abc.def.ghi', 'malformed'],
    ['a token that is not a JWT', 'Bearer service_satellite_nonsense', 'invalid'],
  ])('refuses %s with 401 and instructions', async (_name, header, reason) => {
    const response = await registerWith(stack, header, satelliteBody('x'));
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject(refusal(reason));
  });

  it('refuses a token signed with another secret', async () => {
    const forged = await new SignJWT({ scope: 'global' })
      .setProtectedHeader({ alg: 'HS256' })
      .setJti('7b0c5f0e-8d63-4a7e-9f53-0a1e2d3c4b5a')
      .setIssuer('orbital-registry')
      .setAudience('satellite-registration')
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode('x'.repeat(48)));
    const response = await registerWith(stack, `Bearer service_satellite_${forged}`, satelliteBody('x'));
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject(refusal('invalid'));
  });

  it('refuses an expired token', async () => {
    const token = await createToken(stack, { scope: 'global' }, globalAdmin, 5);
    stack.clock.advance(5 * 60000 + 1000);
    const response = await registerWith(stack, token.authorization, satelliteBody('late'));
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject(refusal('expired'));
  });

  it('refuses a token of the wrong scope with 403', async () => {
    const teamToken = await createToken(stack, { scope: 'team', team_id: 'team-a' });
    // As a global satellite, or for another team: both outside team A's token.
    for (const outside of [{ satellite_type: 'global' }, { team_id: 'team-b' }]) {
      const refused = await registerWith(stack, teamToken.authorization, satelliteBody('x', outside));
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toMatchObject(refusal('wrong_scope'));
    }
    // The refused attempts did not consume the token.
    expect((await registerWith(stack, teamToken.authorization, satelliteBody('x'))).statusCode).toBe(201);
  });

  it('answers 400 for a body without a name', async () => {
    const token = await createToken(stack, { scope: 'global' });
    const response = await registerWith(stack, token.authorization, { capabilities: [] });
    expect(response.statusCode).toBe(400);
  });
});

describe('satellite API keys', () => {
  it("give a satellite its own paths only: another satellite's id is 403", async () => {
    const a = await registerSatellite(stack, { scope: 'global' }, 'a');
    const b = await registerSatellite(stack, { scope: 'global' }, 'b');
    for (const [method, path] of [
      ['GET', `${b.id}/commands`],
      ['GET', `${b.id}/config`],
      ['POST', `${b.id}/heartbeat`],
      ['POST', `${b.id}/command-results`],
    ] as const) {
      const body =
        method === 'POST'
          ? path.endsWith('heartbeat')
            ? heartbeatBody()
            : { command_id: a.id, status: 'acknowledged' }
          : undefined;
      const response = await call(stack, a, method, path, body);
      expect(response.statusCode, path).toBe(403);
      expect(response.json()).toMatchObject({
        success: false,
        error: { code: 'forbidden', instructions: expect.any(String) },
      });
    }
    expect((await call(stack, a, 'GET', `${a.id}/commands`)).statusCode).toBe(200);
  });

  it('answer 401 with a structured error for a missing, malformed, unknown or wrong key', async () => {
    const a = await registerSatellite(stack, { scope: 'global' }, 'keys');
    const [keyId, secret] = a.apiKey.split('.') as [string, string];
    const wrongSecret = `${keyId}.${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`;
    const unknownId = `sk_${'0'.repeat(24)}.${secret}`;
    for (const apiKey of ['nonsense', wrongSecret, unknownId, wrongSecret]) {
      const response = await call(stack, a, 'GET', `${a.id}/commands`, undefined, { apiKey });
      expect(response.statusCode).toBe(401);
      expect(response.json()).toMatchObject({
        success: false,
        error: { code: 'unauthenticated', message: expect.any(String), instructions: expect.any(String) },
      });
    }
    const none = await stack.gateway.inject({ method: 'GET', url: `/api/satellites/${a.id}/commands` });
    expect(none.statusCode).toBe(401);
  });

  it('are verified once and then served from the cache', async () => {
    const a = await registerSatellite(stack, { scope: 'global' }, 'cached');
    const before = stack.satellites.cache.size();
    await Promise.all([1, 2, 3, 4].map(() => call(stack, a, 'GET', `${a.id}/commands`)));
    expect(stack.satellites.cache.size()).toBe(before + 1);
  });

  it('stop working on every replica when the satellite is revoked', async () => {
    const a = await registerSatellite(stack, { scope: 'team', team_id: 'team-rev' }, 'revoked');
    await activate(stack, a);
    const cachedBefore = stack.satellites.cache.size();
    await stack.adminBus.request(
      registrySubjects.revokeSatellite,
      { satellite_id: a.id },
      { identity: teamMember('team-rev', 'team_admin') },
    );
    await vi.waitFor(() => expect(stack.satellites.cache.size()).toBe(cachedBefore - 1));
    const response = await call(stack, a, 'GET', `${a.id}/commands`);
    expect(response.statusCode).toBe(401);
  });

  it("enforce a team satellite's IP allowlist", async () => {
    const a = await registerSatellite(stack, { scope: 'team', team_id: 'team-ip' }, 'fenced');
    await stack.adminBus.request(
      registrySubjects.updateAllowlist,
      { satellite_id: a.id, ip_allowlist: ['10.0.0.0/8', '2001:db8::/32'] },
      { identity: teamMember('team-ip', 'team_admin') },
    );
    await vi.waitFor(async () => {
      expect(
        (await call(stack, a, 'GET', `${a.id}/commands`, undefined, { remoteAddress: '192.0.2.1' })).statusCode,
      ).toBe(403);
    });
    const inside = await call(stack, a, 'GET', `${a.id}/commands`, undefined, { remoteAddress: '10.1.2.3' });
    expect(inside.statusCode).toBe(200);
  });
});
