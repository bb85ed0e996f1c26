import { satelliteKeyDigest } from '@orbital/crypto';
import { stackForFile } from '@orbital/testing/stackForFile';
import argon2 from 'argon2';
import { describe, expect, it } from 'vitest';
import {
  clientIp,
  createToken,
  gatewayApi,
  globalAdmin,
  installations,
  register,
  registerSatellite,
  satelliteBody,
  startRegistryStack,
  teamMember,
} from './registryHarness.ts';

const stack = stackForFile(() => startRegistryStack());

/** A refusal as it travels back on the bus: the code, what to do next, and why in `details.reason`. */
const refused = (code: string, reason: string) => ({
  code,
  message: expect.any(String),
  instructions: expect.any(String),
  details: { reason },
});

describe('registration tokens', () => {
  it('are generated for global admins and shown once, then listed without the token', async () => {
    const created = await createToken(stack, { scope: 'global' });
    expect(created).toMatchObject({ scope: 'global', team_id: null, state: 'active' });
    expect(created.authorization).toBe(`Bearer service_satellite_${created.token}`);
    expect(Date.parse(created.expires_at) - Date.parse(created.created_at)).toBe(60 * 60000);
    const listed = await stack.request('listTokens', { target: { scope: 'global' } }, globalAdmin);
    expect(listed.find((t) => t.id === created.id)).toMatchObject({ state: 'active' });
    expect(JSON.stringify(listed)).not.toContain(created.token);
  });

  it('follow the roles: team admins and member global users for their team, nobody else', async () => {
    const team = { scope: 'team', team_id: 'team-t' } as const;
    await expect(createToken(stack, team, teamMember('team-t', 'team_admin'))).resolves.toMatchObject(team);
    // A global user may register team satellites within their own memberships.
    await expect(createToken(stack, team, teamMember('team-t', 'team_user'))).resolves.toMatchObject(team);
    await expect(
      createToken(stack, { scope: 'team', team_id: 'team-other' }, teamMember('team-t', 'team_admin')),
    ).rejects.toMatchObject({ code: 'forbidden' });
    await expect(createToken(stack, { scope: 'global' }, teamMember('team-t', 'team_admin'))).rejects.toMatchObject({
      code: 'forbidden',
    });
    await expect(
      stack.request('listTokens', { target: team }, teamMember('team-t', 'team_user')),
    ).rejects.toMatchObject({ code: 'forbidden' });
    await expect(createToken(stack, { scope: 'global' }, { kind: 'anonymous' })).rejects.toMatchObject({
      code: 'unauthenticated',
    });
    // Platform processes have no business minting tokens.
    await expect(createToken(stack, { scope: 'global' }, installations)).rejects.toMatchObject({ code: 'forbidden' });
  });

  it('are revoked only within their scope, and a revoked token registers nothing', async () => {
    const token = await createToken(stack, { scope: 'team', team_id: 'team-r' });
    await expect(
      stack.request(
        'revokeToken',
        { target: { scope: 'team', team_id: 'team-other' }, token_id: token.id },
        globalAdmin,
      ),
    ).rejects.toMatchObject({ code: 'not_found' });
    const revoked = await stack.request(
      'revokeToken',
      { target: { scope: 'team', team_id: 'team-r' }, token_id: token.id },
      teamMember('team-r', 'team_admin'),
    );
    expect(revoked.state).toBe('revoked');
    await expect(register(stack, token.authorization, satelliteBody('revoked'))).rejects.toMatchObject(
      refused('unauthenticated', 'revoked'),
    );
  });

  it('refuse a request that does not fit the subject, naming the field', async () => {
    await expect(
      stack.request('createToken', { target: { scope: 'planet' }, options: {} } as never, globalAdmin),
    ).rejects.toMatchObject({
      code: 'validation_failed',
      details: expect.arrayContaining([expect.objectContaining({ path: expect.stringContaining('target') })]),
    });
  });
});

describe('registration', () => {
  it('issues an API key once, stores only its Argon2 hash and digest, and starts the satellite inactive', async () => {
    const token = await createToken(stack, { scope: 'team', team_id: 'team-a' });
    const made = await register(stack, token.authorization, satelliteBody('edge-1'));
    expect(made).toEqual({
      satellite_id: expect.any(String),
      api_key: expect.stringMatching(/^sk_[0-9a-f]{24}\.[A-Za-z0-9_-]{43}$/),
      status: 'inactive',
      satellite_type: 'team',
      team_id: 'team-a',
    });
    const [keyId, secret] = made.api_key.split('.') as [string, string];
    const [row] = await stack.sql('SELECT * FROM satellites WHERE id = $1', [made.satellite_id]);
    expect(row?.api_key_hash).toMatch(/^\$argon2id\$/);
    expect(JSON.stringify(row)).not.toContain(secret);
    // The token is consumed with the registration, by the satellite it registered.
    const [used] = await stack.sql('SELECT id FROM satellites WHERE registration_token_id = $1', [token.id]);
    expect(used?.id).toBe(made.satellite_id);

    // What gateway-api reads to verify the key: the hash verifies the secret the satellite was given.
    const found = await stack.request('lookupApiKey', { key_id: keyId }, gatewayApi);
    expect(found).toMatchObject({ satellite_id: made.satellite_id, status: 'inactive', team_id: 'team-a' });
    expect(await argon2.verify(found.api_key_hash, secret)).toBe(true);
    expect(await argon2.verify(found.api_key_hash, `${secret.slice(0, -1)}x`)).toBe(false);
    // And its digest, by which a replica knows the key without Argon2.
    expect(found.api_key_digest).toBe(satelliteKeyDigest(keyId, secret));
  });

  it("keeps the digest gateway-api reports for a key verified with Argon2, only against the row's own hash", async () => {
    const sat = await registerSatellite(stack, { scope: 'global' }, 'from-before-digests');
    const [keyId, secret] = sat.apiKey.split('.') as [string, string];
    // A key issued before digests existed: its row holds the Argon2 hash alone.
    await stack.sql('UPDATE satellites SET api_key_digest = NULL WHERE id = $1', [sat.id]);
    const { api_key_hash: hash } = await stack.request('lookupApiKey', { key_id: keyId }, gatewayApi);
    const digest = satelliteKeyDigest(keyId, secret);
    const remember = (apiKeyHash: string, apiKeyDigest: string) =>
      stack.request(
        'rememberApiKeyDigest',
        { key_id: keyId, api_key_hash: apiKeyHash, api_key_digest: apiKeyDigest },
        gatewayApi,
      );
    // Verified against another hash (the row changed since): nothing is written.
    expect(await remember('$argon2id$v=19$m=8192,t=2,p=1$other', digest)).toEqual({ stored: false });
    expect((await stack.request('lookupApiKey', { key_id: keyId }, gatewayApi)).api_key_digest).toBeNull();
    expect(await remember(hash, digest)).toEqual({ stored: true });
    // Once there, a digest is never replaced.
    expect(await remember(hash, 'sha256:another')).toEqual({ stored: false });
    expect((await stack.request('lookupApiKey', { key_id: keyId }, gatewayApi)).api_key_digest).toBe(digest);
    await expect(
      stack.request('rememberApiKeyDigest', { key_id: keyId, api_key_hash: hash, api_key_digest: digest }, globalAdmin),
    ).rejects.toMatchObject({ code: 'forbidden' });
  });

  it('uses a token once: a replay is refused', async () => {
    const token = await createToken(stack, { scope: 'global' });
    await register(stack, token.authorization, satelliteBody('first'));
    await expect(register(stack, token.authorization, satelliteBody('second'))).rejects.toMatchObject(
      refused('unauthenticated', 'already_used'),
    );
  });

  it('lets exactly one of concurrent registrations with one token through', async () => {
    const token = await createToken(stack, { scope: 'global' });
    const outcomes = await Promise.allSettled(
      ['racer-1', 'racer-2', 'racer-3'].map((name) => register(stack, token.authorization, satelliteBody(name))),
    );
    const winners = outcomes.filter((o) => o.status === 'fulfilled');
    expect(winners).toHaveLength(1);
    const rows = await stack.sql('SELECT id FROM satellites WHERE registration_token_id = $1', [token.id]);
    expect(rows.map((r) => r.id)).toEqual([winners[0]?.value.satellite_id]);
  });

  it.each([
    ['no Authorization header', null, 'missing'],
    ['a header without the service_satellite_ prefix', 'Bearer abc.def.ghi', 'malformed'],
    ['a token that is not a JWT', 'Bearer service_satellite_nonsense', 'invalid'],
  ])('refuses %s', async (_name, header, reason) => {
    await expect(register(stack, header, satelliteBody('x'))).rejects.toMatchObject(refused('unauthenticated', reason));
  });

  it('refuses an expired token', async () => {
    const token = await createToken(stack, { scope: 'global' }, globalAdmin, 5);
    stack.clock.advance(5 * 60000 + 1000);
    await expect(register(stack, token.authorization, satelliteBody('late'))).rejects.toMatchObject(
      refused('unauthenticated', 'expired'),
    );
  });

  it('refuses a token of the wrong scope without consuming it', async () => {
    const token = await createToken(stack, { scope: 'team', team_id: 'team-a' });
    await expect(
      register(stack, token.authorization, satelliteBody('x', { satellite_type: 'global' })),
    ).rejects.toMatchObject(refused('forbidden', 'wrong_scope'));
    await expect(register(stack, token.authorization, satelliteBody('x', { team_id: 'team-b' }))).rejects.toMatchObject(
      refused('forbidden', 'wrong_scope'),
    );
    await expect(register(stack, token.authorization, satelliteBody('x'))).resolves.toMatchObject({
      team_id: 'team-a',
    });
  });

  it('records every refusal as a security event, with the address it came from', async () => {
    const rows = await stack.sql(
      "SELECT details->>'reason' AS reason, ip_address, details::text AS details FROM satellite_usage_logs WHERE action = 'registration_refused'",
    );
    expect(new Set(rows.map((r) => r.reason))).toEqual(
      new Set(['revoked', 'already_used', 'missing', 'malformed', 'invalid', 'expired', 'wrong_scope']),
    );
    expect(new Set(rows.map((r) => r.ip_address))).toEqual(new Set([clientIp]));
    // Never the token itself: a logged token could be replayed by whoever reads the log.
    expect(rows.map((r) => r.details).join()).not.toContain('service_satellite_');
  });

  it('refuses a body without a name before looking at the token', async () => {
    const token = await createToken(stack, { scope: 'global' });
    await expect(register(stack, token.authorization, { capabilities: [] })).rejects.toMatchObject({
      code: 'validation_failed',
    });
    await expect(register(stack, token.authorization, satelliteBody('named'))).resolves.toMatchObject({
      satellite_type: 'global',
    });
  });
});

describe('API key lookup', () => {
  it('answers gateway-api only, and not_found for a key no satellite has', async () => {
    const sat = await registerSatellite(stack, { scope: 'global' }, 'lookup');
    const keyId = sat.apiKey.split('.')[0] ?? '';
    for (const caller of [globalAdmin, installations, sat.identity, { kind: 'anonymous' } as const]) {
      await expect(stack.request('lookupApiKey', { key_id: keyId }, caller)).rejects.toMatchObject({
        code: expect.stringMatching(/^(forbidden|unauthenticated)$/),
      });
    }
    await expect(stack.request('lookupApiKey', { key_id: `sk_${'0'.repeat(24)}` }, gatewayApi)).rejects.toMatchObject({
      code: 'not_found',
    });
  });

  it('shows a revoked satellite as revoked, so no replica keeps accepting its key', async () => {
    const sat = await registerSatellite(stack, { scope: 'team', team_id: 'team-rev' }, 'revoked');
    await expect(
      stack.request('revokeSatellite', { satellite_id: sat.id }, teamMember('team-rev', 'team_user')),
    ).rejects.toMatchObject({ code: 'forbidden' });
    await stack.request('revokeSatellite', { satellite_id: sat.id }, teamMember('team-rev', 'team_admin'));
    const keyId = sat.apiKey.split('.')[0] ?? '';
    expect(await stack.request('lookupApiKey', { key_id: keyId }, gatewayApi)).toMatchObject({ status: 'revoked' });
  });
});
