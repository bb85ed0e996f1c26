import type { AuditEntry } from '@orbital/contracts';
import { heartbeatBody } from '@orbital/satellite-registry/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEntriesOnceThere } from './auditEntriesOnceThere.ts';
import { adminCredentials } from './identityStack.ts';
import { type StreamTestStack, startStreamTestStack, type Who } from './streamTestStack.ts';

/**
 * The services that own actions record them themselves, as the person gateway-api vouched for and from
 * the address it saw: installations (templates, installations), the registry (tokens, satellites) and
 * settings (a setting's value never, when it is encrypted). Read back through GET /api/audit.
 */
let streams: StreamTestStack;
let teamA = '';
const started = new Date().toISOString();
const call: StreamTestStack['call'] = (...args) => streams.call(...args);

async function entries(query: Record<string, string>, who: Who = 'admin'): Promise<AuditEntry[]> {
  const search = new URLSearchParams({ from: started, limit: '500', ...query });
  const response = await call('GET', `/api/audit?${search}`, who);
  if (response.status !== 200) throw new Error(`GET /api/audit: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.data.entries;
}

const waitForEntries = (query: Record<string, string>, count = 1) =>
  auditEntriesOnceThere(() => entries(query), count, JSON.stringify(query));

beforeAll(async () => {
  streams = await startStreamTestStack();
  teamA = streams.teamA;
});

afterAll(async () => {
  await streams?.stop();
});

describe('installations', () => {
  it('records templates and installations, with the names of secrets but never their values', async () => {
    const slug = `audited-${Date.now()}`;
    const template = { slug, name: 'Audited', transport: 'stdio', command: 'npx', args: ['fs'] };
    expect((await call('POST', '/api/mcp/servers', 'admin', template)).status).toBe(201);
    expect((await call('PUT', `/api/mcp/servers/${slug}`, 'admin', { description: 'tested' })).status).toBe(200);
    const body = { server_slug: slug, name: 'fs', env: { API_TOKEN: 'install-secret-value' } };
    const created = await call('POST', `/api/teams/${teamA}/mcp/installations`, 'teamAdmin', body);
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    const path = `/api/teams/${teamA}/mcp/installations/${id}`;
    expect((await call('PUT', path, 'teamAdmin', { env: { API_TOKEN: 'changed-secret-value' } })).status).toBe(200);
    expect((await call('PATCH', `${path}/settings`, 'teamAdmin', { request_logging_enabled: true })).status).toBe(200);
    expect((await call('PUT', `${path}/user-config`, 'teamUser', { env: { MINE: 'user-secret-value' } })).status).toBe(
      200,
    );
    expect((await call('DELETE', path, 'teamAdmin')).status).toBe(200);
    expect((await call('DELETE', `/api/mcp/servers/${slug}`, 'admin')).status).toBe(200);

    const installation = await waitForEntries({ target_id: id }, 5);
    expect(installation.map((e) => e.action).reverse()).toEqual([
      'installation.created',
      'installation.updated',
      'installation.settings_updated',
      'installation.user_config_updated',
      'installation.deleted',
    ]);
    expect(installation.at(-1)).toMatchObject({
      source: 'installations',
      actor: { kind: 'user', email: 'teamadmin@orbital.test', name: 'teamAdmin' },
      team_id: teamA,
      details: { name: 'fs', server_slug: slug, env_keys: ['API_TOKEN'] },
    });
    expect(installation.every((e) => e.source_ip !== null)).toBe(true);
    expect(installation.find((e) => e.action === 'installation.user_config_updated')?.actor.email).toBe(
      'teamuser@orbital.test',
    );
    const templates = await waitForEntries({ target_id: slug }, 3);
    expect(templates.map((e) => e.action).reverse()).toEqual([
      'template.created',
      'template.updated',
      'template.deleted',
    ]);
    expect(templates[1]?.details).toMatchObject({ changed: ['description'] });
    const text = JSON.stringify(await entries({}));
    for (const secret of ['install-secret-value', 'changed-secret-value', 'user-secret-value']) {
      expect(text).not.toContain(secret);
    }
    // The team's admins read their installations' entries; catalogue entries belong to no team.
    const own = await call('GET', `/api/teams/${teamA}/audit?target_id=${id}`, 'teamAdmin');
    expect(own.body.data.entries).toHaveLength(5);
  });
});

describe('satellite registry', () => {
  it('records registration tokens by id, registrations, refusals, activation and revocation', async () => {
    const made = await call('POST', `/api/teams/${teamA}/satellites/registration-tokens`, 'teamAdmin', {
      expires_in_minutes: 5,
    });
    expect(made.status).toBe(201);
    const {
      id: tokenId,
      token,
      authorization,
    } = made.body.data as { id: string; token: string; authorization: string };
    const register = (auth: string) =>
      streams.app.inject({
        method: 'POST',
        url: '/api/satellites/register',
        headers: { authorization: auth },
        payload: { name: 'audited-satellite' },
      });
    expect((await register('Bearer service_satellite_not-a-token')).statusCode).toBe(401);
    const registered = await register(authorization);
    expect(registered.statusCode).toBe(201);
    const { satellite_id: satelliteId, api_key: apiKey } = registered.json().data;
    const beat = await streams.app.inject({
      method: 'POST',
      url: `/api/satellites/${satelliteId}/heartbeat`,
      headers: { authorization: `Bearer ${apiKey}` },
      payload: heartbeatBody(),
    });
    expect(beat.statusCode).toBe(200);
    expect((await call('DELETE', `/api/satellites/${satelliteId}`, 'admin')).status).toBe(200);

    const [createdToken] = await waitForEntries({ action: 'registration_token.created', target_id: tokenId });
    expect(createdToken).toMatchObject({
      source: 'satellite-registry',
      team_id: teamA,
      actor: { email: 'teamadmin@orbital.test' },
      details: { scope: 'team' },
    });
    const satellite = await waitForEntries({ target_id: satelliteId }, 3);
    expect(satellite.map((e) => e.action).reverse()).toEqual([
      'satellite.registered',
      'satellite.activated',
      'satellite.revoked',
    ]);
    expect(satellite.at(-1)).toMatchObject({
      actor: { kind: 'satellite', id: satelliteId, name: 'audited-satellite' },
      team_id: teamA,
      details: { token_id: tokenId, type: 'team' },
    });
    expect(satellite[1]?.actor).toMatchObject({ kind: 'satellite', id: satelliteId });
    expect(satellite[0]?.actor).toMatchObject({ kind: 'user', email: adminCredentials.email });
    const [refused] = await waitForEntries({ action: 'satellite.registered', outcome: 'failure' });
    expect(refused).toMatchObject({ actor: { kind: 'anonymous' }, reason: expect.any(String) });
    expect(refused?.source_ip).toBeTruthy();

    const second = await call('POST', `/api/teams/${teamA}/satellites/registration-tokens`, 'teamAdmin', {
      expires_in_minutes: 5,
    });
    const secondId = second.body.data.id as string;
    expect(
      (await call('DELETE', `/api/teams/${teamA}/satellites/registration-tokens/${secondId}`, 'teamAdmin')).status,
    ).toBe(200);
    await waitForEntries({ action: 'registration_token.revoked', target_id: secondId });
    const text = JSON.stringify(await entries({}));
    expect(text).not.toContain(token);
    expect(text).not.toContain(second.body.data.token);
    expect(text).not.toContain(apiKey);
  });
});

describe('settings through the API', () => {
  it('records who changed a setting from where, and never an encrypted value', async () => {
    const key = `ops.audited_${Date.now()}`;
    expect(
      (await call('POST', '/api/settings', 'admin', { key, value: 'vault-secret-value', encrypted: true })).status,
    ).toBe(201);
    expect((await call('PUT', `/api/settings/${key}`, 'admin', { value: 'vault-secret-two' })).status).toBe(200);
    const found = await waitForEntries({ target_id: key }, 2);
    expect(found[0]).toMatchObject({
      source: 'settings',
      action: 'setting.updated',
      actor: { kind: 'user', name: 'Root' },
      details: { key, encrypted: true, changed: ['value'] },
    });
    expect(found[0]?.source_ip).toBeTruthy();
    const text = JSON.stringify(await entries({}));
    expect(text).not.toContain('vault-secret-value');
    expect(text).not.toContain('vault-secret-two');
  });
});
