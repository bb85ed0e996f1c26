import { readFile, stat } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { errorReply } from './createScriptedBackend.ts';
import { storedCredentials, tempStateDir } from './linkFixture.ts';
import { useScriptedLink } from './useScriptedLink.ts';

const link = useScriptedLink();

const registered = (n: number) => ({
  status: 201,
  body: {
    success: true,
    data: {
      satellite_id: `00000000-0000-4000-8000-00000000000${n}`,
      api_key: `sk_${'a'.repeat(23)}${n}.new-secret-${n}`,
      status: 'inactive',
      satellite_type: 'team',
      team_id: 'team-a',
    },
  },
});

describe('registration and credentials', () => {
  it('registers with the token, then keeps the key in an owner-only file written in place of nothing', async () => {
    link.backend.respond(() => registered(1));
    const parts = await link.parts({ token: 'the-token', credentials: null });
    const credentials = await parts.identity.ensure();
    expect(credentials).toMatchObject({ satellite_id: '00000000-0000-4000-8000-000000000001', team_id: 'team-a' });
    expect(link.backend.requests[0]).toMatchObject({
      method: 'POST',
      path: '/api/satellites/register',
      authorization: 'Bearer service_satellite_the-token',
      body: { name: 'test-satellite', capabilities: ['stdio', 'http', 'sse'] },
    });
    expect((await stat(parts.stateDir)).mode & 0o777).toBe(0o700);
    expect((await stat(parts.store.path)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(parts.store.path, 'utf8'))).toMatchObject({ api_key: credentials.api_key });
    // Neither the token nor the key is logged.
    expect(link.log.text()).not.toContain('the-token');
    expect(link.log.text()).not.toContain('new-secret');
  });

  it('starts from stored credentials without a token and without asking the backend', async () => {
    const parts = await link.parts();
    expect(await parts.identity.ensure()).toEqual(storedCredentials(link.backend.url));
    expect(link.backend.requests).toHaveLength(0);
  });

  it('keeps stored credentials when the backend is down at start and every call fails', async () => {
    const stateDir = await tempStateDir();
    const url = link.backend.url;
    await link.backend.close();
    const parts = await link.parts({ backendUrl: url, stateDir, token: 'spare' });
    const before = await readFile(parts.store.path, 'utf8');
    await parts.identity.ensure();
    for (let i = 0; i < 3; i++) {
      const result = await parts.api.call('POST', '/heartbeat', {});
      expect(result.kind).toBe('network');
    }
    expect(await readFile(parts.store.path, 'utf8')).toBe(before);
    expect(parts.identity.current()?.api_key).toBe(storedCredentials(url).api_key);
  });

  it('retries registration through 5xx and an unreachable backend with backoff, registering once', async () => {
    let n = 0;
    link.backend.respond(() => (n++ < 2 ? errorReply(503, 'unavailable') : registered(2)));
    const parts = await link.parts({ token: 'tok', credentials: null });
    const ensuring = parts.identity.ensure();
    await link.backend.waitForRequests(1);
    await link.scheduler.advance(1000);
    await link.backend.waitForRequests(2);
    await link.scheduler.advance(2000);
    const credentials = await ensuring;
    expect(credentials.satellite_id).toBe('00000000-0000-4000-8000-000000000002');
    expect(link.backend.requests).toHaveLength(3);
  });

  it('stops with the backend instructions when the token is refused', async () => {
    link.backend.respond(() =>
      errorReply(401, 'unauthenticated', { instructions: 'Generate a new registration token and try again.' }),
    );
    const parts = await link.parts({ token: 'used', credentials: null });
    await expect(parts.identity.ensure()).rejects.toThrow(/Generate a new registration token/);
  });

  it('without credentials or token, refuses to start and names SATELLITE_REGISTRATION_TOKEN', async () => {
    const parts = await link.parts({ credentials: null });
    await expect(parts.identity.ensure()).rejects.toThrow(/no registration token \(SATELLITE_REGISTRATION_TOKEN or/);
  });

  it('re-registers on a 401 when a token is available, once; after that keeps the key and tells the operator', async () => {
    let registrations = 0;
    link.backend.respond((request) => {
      if (request.path === '/api/satellites/register') {
        registrations++;
        return registrations === 1 ? registered(3) : errorReply(401, 'unauthenticated');
      }
      return errorReply(401, 'unauthenticated');
    });
    const parts = await link.parts({ token: 'spare' });
    await parts.identity.ensure();
    await parts.api.call('GET', '/commands');
    expect(parts.identity.current()?.satellite_id).toBe('00000000-0000-4000-8000-000000000003');
    expect(JSON.parse(await readFile(parts.store.path, 'utf8')).satellite_id).toBe(
      '00000000-0000-4000-8000-000000000003',
    );
    // The new key is refused too: the token is spent, so no second registration.
    await parts.api.call('GET', '/commands');
    await parts.api.call('GET', '/commands');
    expect(registrations).toBe(1);
    expect(parts.identity.current()?.satellite_id).toBe('00000000-0000-4000-8000-000000000003');
    expect(link.log.lines().filter((l) => String(l.msg).includes('To re-register'))).toHaveLength(1);
  });

  it('a transient failure of the re-registration keeps the old credentials and tries again later', async () => {
    let registrations = 0;
    link.backend.respond((request) => {
      if (request.path === '/api/satellites/register') {
        registrations++;
        return registrations === 1 ? errorReply(502, 'unavailable') : registered(4);
      }
      return errorReply(401, 'unauthenticated');
    });
    const parts = await link.parts({ token: 'spare' });
    await parts.identity.ensure();
    await parts.api.call('GET', '/commands');
    expect(parts.identity.current()).toEqual(storedCredentials(link.backend.url));
    await parts.api.call('GET', '/commands');
    expect(parts.identity.current()?.satellite_id).toBe('00000000-0000-4000-8000-000000000004');
  });
});
