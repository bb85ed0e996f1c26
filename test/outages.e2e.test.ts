import { readFileSync } from 'node:fs';
import { clientConnectedBatch, defaults, freePort, startTcpProxy, type TcpProxy } from '@orbital/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
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
let satellite: { id: string; key: string };

type Envelope<T> = { success: boolean; data: T; error: { code: string; details?: Record<string, unknown> } };

/**
 * The path of gateway-api's readiness probe as the Kubernetes Deployment declares it: what decides whether
 * a Service routes to a replica, so the test holds the manifest to the behaviour it relies on.
 */
function deployedReadinessPath(): string {
  const deployment = parse(
    readFileSync(new URL('../deploy/kubernetes/base/gateway-api.deployment.yaml', import.meta.url), 'utf8'),
  );
  const container = deployment.spec.template.spec.containers.find((c: { name: string }) => c.name === 'gateway-api');
  return container.readinessProbe.httpGet.path;
}

/** One satellite event, as a satellite sends it. */
async function sendEvent() {
  const response = await fetch(`${platform.api}/api/satellites/${satellite.id}/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${satellite.key}` },
    body: clientConnectedBatch(),
    signal: AbortSignal.timeout(5000),
  });
  return { status: response.status, body: (await response.json()) as Envelope<{ accepted: number }> };
}

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
  const registration = await call<Envelope<{ authorization: string }>>(
    platform.api,
    'POST',
    '/api/satellites/registration-tokens',
    { token, body: {} },
  );
  const registered = await fetch(`${platform.api}/api/satellites/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: registration.data.authorization },
    body: JSON.stringify({ name: 'outages' }),
  });
  expect(registered.status).toBe(201);
  const { data } = (await registered.json()) as Envelope<{ satellite_id: string; api_key: string }>;
  satellite = { id: data.satellite_id, key: data.api_key };
}, 120_000);

afterAll(async () => {
  database?.restore();
  nats?.restore();
  await platform?.stop();
  await database?.close();
  await nats?.close();
});

describe('outages', () => {
  it('PostgreSQL unreachable: 503 on database routes, event intake still ready behind a Service, back without a restart', async () => {
    expect((await get('/api/satellites')).status).toBe(200);
    expect((await get('/readyz', platform.api)).status).toBe(200);
    // The satellite's key is seen once before the outage, as every running satellite's is.
    expect(await sendEvent()).toMatchObject({ status: 200, body: { data: { accepted: 1 } } });
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
      // The probe the Deployment declares keeps the replica in the Service, and intake flows through it.
      expect((await fetch(`${platform.api}${deployedReadinessPath()}`)).status).toBe(200);
      expect(await sendEvent()).toMatchObject({ status: 200, body: { data: { accepted: 1 } } });
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
