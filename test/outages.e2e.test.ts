import { defaults, freePort, startTcpProxy, type TcpProxy } from '@orbital/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, eventually, type Platform, startPlatform } from './platformHarness.ts';

/**
 * The real processes with PostgreSQL and NATS each behind a TCP proxy the test cuts and restores: an
 * outage is answered as one (503 `unavailable`, readiness saying why), never as a bug (500), and
 * everything works again once the dependency is back, with no restart.
 */
let database: TcpProxy;
let nats: TcpProxy;
let platform: Platform;
let token: string;
let registryOps: number;

type Envelope<T> = { success: boolean; data: T; error: { code: string; details?: Record<string, unknown> } };

async function get(path: string, base = platform.api) {
  const response = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, body: (await response.json()) as Envelope<unknown> & Record<string, unknown> };
}

beforeAll(async () => {
  registryOps = await freePort();
  database = await startTcpProxy(defaults.postgres);
  nats = await startTcpProxy(defaults.nats);
  platform = await startPlatform({
    env: {
      POSTGRES_HOST: database.host,
      POSTGRES_PORT: String(database.port),
      NATS_URL: `nats://${nats.host}:${nats.port}`,
    },
    envFor: (name): Record<string, string> => (name === 'registry' ? { METRICS_PORT: String(registryOps) } : {}),
  });
  await call(platform.api, 'POST', '/api/db/setup', { body: { type: 'postgresql' } });
  const login = await eventually('the first admin to exist', async () =>
    call<Envelope<{ token: string }>>(platform.api, 'POST', '/api/auth/login', { body: platform.admin }),
  );
  token = login.data.token;
}, 120_000);

afterAll(async () => {
  database?.restore();
  nats?.restore();
  await platform?.stop();
  await database?.close();
  await nats?.close();
});

describe('outages', () => {
  it('PostgreSQL unreachable: 503 unavailable on database routes, not ready, and back without a restart', async () => {
    expect((await get('/api/satellites')).status).toBe(200);
    expect((await get('/readyz', platform.api)).status).toBe(200);
    database.cut();
    try {
      // The registry's database route and identity's own (a login reads the users table).
      const satellites = await get('/api/satellites');
      expect(satellites).toMatchObject({ status: 503, body: { success: false, error: { code: 'unavailable' } } });
      const login = await fetch(`${platform.api}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(platform.admin),
      });
      expect(login.status).toBe(503);

      // gateway-api's readiness names the database but stays ready: behind a Service, event intake and
      // known sessions go on through it, and the routes that need the database answer 503 themselves.
      const ready = await eventually('gateway-api to report the database failing', async () => {
        const response = await fetch(`${platform.api}/readyz`);
        const body = (await response.json()) as { checks: Record<string, string> };
        return body.checks.database === 'failing' ? { status: response.status, body } : undefined;
      });
      expect(ready).toMatchObject({
        status: 200,
        body: { status: 'ready', checks: { database: 'failing', nats: 'ok' } },
      });
      const registryReady = await eventually('the registry to report not ready', async () => {
        const response = await fetch(`http://127.0.0.1:${registryOps}/readyz`);
        return response.status === 503 ? ((await response.json()) as Record<string, unknown>) : undefined;
      });
      expect(registryReady).toMatchObject({ checks: { database: 'failing' } });
    } finally {
      database.restore();
    }
    await eventually('database routes to answer again', async () =>
      (await get('/api/satellites')).status === 200 ? true : undefined,
    );
    await eventually('gateway-api to report the database again', async () => {
      const body = (await (await fetch(`${platform.api}/readyz`)).json()) as { checks: Record<string, string> };
      return body.checks.database === 'ok' ? true : undefined;
    });
    const errors = platform
      .logs('gateway-api')
      .split('\n')
      .filter((line) => line.includes('"level":"error"') || line.includes('"level":50'));
    expect(errors).toEqual([]);
  });

  it('NATS unreachable: 503 at once, refused before any timeout, and back once NATS is', async () => {
    expect((await get('/api/satellites')).status).toBe(200);
    nats.cut();
    try {
      const ready = await eventually('gateway-api to notice NATS is gone', async () => {
        const response = await fetch(`${platform.api}/readyz`);
        return response.status === 503 ? ((await response.json()) as Record<string, unknown>) : undefined;
      });
      expect(ready).toMatchObject({ checks: { nats: 'failing' } });
      const refused = await get('/api/satellites');
      // Refused because the connection is down, not after waiting for the request timeout.
      expect(refused).toMatchObject({
        status: 503,
        body: { error: { code: 'unavailable', details: { reason: 'bus_disconnected' } } },
      });
    } finally {
      nats.restore();
    }
    await eventually('requests to reach the services again', async () =>
      (await get('/api/satellites')).status === 200 ? true : undefined,
    );
  });
});
