import {
  type ChildService,
  createTestEnvironment,
  defaults,
  freePort,
  startServiceProcess,
  startTcpProxy,
  type TcpProxy,
  type TestEnvironment,
} from '@orbital/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolExecutedEvent } from '../services/gateway-api/test/eventFixtures.ts';
import { call, eventually } from './platformHarness.ts';

/**
 * Satellite events accepted while the installations service cannot reach PostgreSQL for 90 s are all
 * stored once it can again, each exactly once, with no manual step: the consumer waits out the outage
 * instead of parking the events, and a backlog of thousands flows through once the database is back.
 */
const outageMs = 90_000;
const eventCount = 3000;
let env: TestEnvironment;
let proxy: TcpProxy;
const children: ChildService[] = [];
let api: string;

type Envelope<T> = { data: T };

beforeAll(async () => {
  env = await createTestEnvironment();
  proxy = await startTcpProxy(defaults.postgres);
  const port = await freePort();
  api = `http://127.0.0.1:${port}`;
  const common = { ...env.env, ADMIN_EMAIL: 'owner@orbital.test', ADMIN_PASSWORD: 'correct horse battery staple 77' };
  const start = async (entry: string, extra: Record<string, string> = {}) => {
    children.push(await startServiceProcess(entry, { ...common, ...extra }, { readyTimeoutMs: 30000 }));
  };
  await start('services/settings/src/main.ts');
  await start('services/satellite-registry/src/main.ts');
  // Only installations reaches PostgreSQL through the proxy: the outage is its own.
  await start('services/installations/src/main.ts', { POSTGRES_HOST: proxy.host, POSTGRES_PORT: String(proxy.port) });
  await start('services/gateway-api/src/main.ts', { PORT: String(port), HOST: '127.0.0.1' });
}, 120_000);

afterAll(async () => {
  proxy?.restore();
  for (const child of children.reverse()) await child.stop();
  await proxy?.close();
  await env?.cleanup();
});

describe('a 90 s database outage behind the event consumer', () => {
  it('stores every event accepted during it exactly once, once the database is back', async () => {
    await call(api, 'POST', '/api/db/setup', { body: { type: 'postgresql' } });
    const admin = (
      await eventually('the first admin', () =>
        call<Envelope<{ token: string }>>(api, 'POST', '/api/auth/login', {
          body: { email: 'owner@orbital.test', password: 'correct horse battery staple 77' },
        }),
      )
    ).data.token;
    const as = (token: string) => ({ token });
    const team = (
      await call<Envelope<{ id: string }>>(api, 'POST', '/api/teams', {
        ...as(admin),
        body: { slug: 'outage', name: 'Outage' },
      })
    ).data;
    const lead = { email: 'lead@orbital.test', name: 'Lead', password: 'seven orbits around a quiet moon' };
    await call(api, 'POST', '/api/users', { ...as(admin), body: lead });
    await call(api, 'POST', `/api/teams/${team.id}/members`, {
      ...as(admin),
      body: { email: lead.email, role: 'team_admin' },
    });
    const leadLogin = { email: lead.email, password: lead.password };
    const leadToken = (await call<Envelope<{ token: string }>>(api, 'POST', '/api/auth/login', { body: leadLogin }))
      .data.token;
    await call(api, 'POST', '/api/mcp/servers', {
      ...as(admin),
      body: { slug: 'outage-server', name: 'Outage server', transport: 'stdio', command: 'node', args: ['server.js'] },
    });
    const installation = (
      await call<Envelope<{ id: string }>>(api, 'POST', `/api/teams/${team.id}/mcp/installations`, {
        ...as(leadToken),
        body: { server_slug: 'outage-server', name: 'outage' },
      })
    ).data;
    const registration = (
      await call<Envelope<{ token: string }>>(api, 'POST', `/api/teams/${team.id}/satellites/registration-tokens`, {
        ...as(leadToken),
        body: {},
      })
    ).data;
    const satellite = (
      await call<Envelope<{ satellite_id: string; api_key: string }>>(api, 'POST', '/api/satellites/register', {
        token: `service_satellite_${registration.token}`,
        body: { name: 'outage-satellite', capabilities: ['stdio'], system_info: { os: 'linux' } },
        expect: 201,
      })
    ).data;

    const executed = () =>
      toolExecutedEvent(team.id, { installation_id: installation.id, server_slug: 'outage-server' });
    const ids: string[] = [];
    const send = async (count: number) => {
      const events = Array.from({ length: count }, executed);
      const reply = await call<Envelope<{ accepted: number }>>(
        api,
        'POST',
        `/api/satellites/${satellite.satellite_id}/events`,
        {
          token: satellite.api_key,
          body: { events },
        },
      );
      expect(reply.data.accepted).toBe(count);
      ids.push(...events.map((e) => e.id));
    };
    const db = new pg.Client({ ...env.postgres });
    await db.connect();
    const storedCount = async () =>
      (
        await db.query<{ total: number; distinct: number }>(
          'SELECT count(*)::int AS total, count(DISTINCT id)::int AS distinct FROM installations.request_logs WHERE installation_id = $1',
          [installation.id],
        )
      ).rows[0] as { total: number; distinct: number };
    try {
      // The consumer works before the outage.
      await send(1);
      await eventually('the first event stored', async () => ((await storedCount()).total === 1 ? true : undefined));

      proxy.cut();
      const cutAt = Date.now();
      // Accepted during the outage, spread over its first minute (30 batches of 100).
      for (let batch = 0; batch < eventCount / 100; batch += 1) {
        await send(100);
        await new Promise((resolve) => setTimeout(resolve, 2000));
      }
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, outageMs - (Date.now() - cutAt))));
      expect((await storedCount()).total).toBe(1);
      proxy.restore();

      const stored = await eventually(
        'every event stored',
        async () => {
          const counts = await storedCount();
          return counts.total >= eventCount + 1 ? counts : undefined;
        },
        120_000,
      );
      expect(stored).toEqual({ total: eventCount + 1, distinct: eventCount + 1 });
      const rows = await db.query<{ id: string }>(
        'SELECT id::text FROM installations.request_logs WHERE installation_id = $1',
        [installation.id],
      );
      expect(new Set(rows.rows.map((r) => r.id))).toEqual(new Set(ids));
    } finally {
      await db.end();
    }
    // Nothing was parked on the way.
    const logs = children.map((c) => c.output()).join('\n');
    expect(logs).not.toContain('event parked');
  }, 300_000);
});
