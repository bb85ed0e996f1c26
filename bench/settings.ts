/**
 * Cached settings reads per second, through NATS (a platform service asking the settings service) and
 * through HTTP (a client asking gateway-api, which asks the settings service), against the real
 * processes on the real PostgreSQL and NATS. Run: `npm run bench:settings`.
 */
import { createBus } from '@orbital/bus';
import { type CallerIdentity, settingsSubjects } from '@orbital/contracts';
import { createLogger } from '@orbital/logger';
import { createTestEnvironment, startServiceProcess } from '@orbital/testing';
import { measure, printTable } from './stats.ts';

const env = await createTestEnvironment();
const logger = createLogger({ name: 'bench', level: 'silent' });
const port = 20000 + Math.floor(Math.random() * 20000);
const base = `http://127.0.0.1:${port}`;
const admin = { email: 'bench@orbital.test', password: 'correct horse battery staple 42' };
const children = [];
try {
  const common = { ...env.env, DB_SETUP_SERVICE_TIMEOUT_MS: '1000' };
  children.push(await startServiceProcess('services/settings/src/main.ts', common));
  children.push(
    await startServiceProcess('services/gateway-api/src/main.ts', {
      ...common,
      PORT: String(port),
      HOST: '127.0.0.1',
      ADMIN_EMAIL: admin.email,
      ADMIN_PASSWORD: admin.password,
    }),
  );
  // Processes log at warn: wait for the gateway to answer instead of for its ready line.
  for (let i = 0; i < 100; i += 1) {
    if (
      await fetch(`${base}/healthz`)
        .then((r) => r.ok)
        .catch(() => false)
    )
      break;
    await new Promise((r) => setTimeout(r, 100));
  }
  await fetch(`${base}/api/db/setup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"type":"postgresql"}',
  });
  let token = '';
  for (let i = 0; i < 50 && !token; i += 1) {
    const login = await fetch(`${base}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(admin),
    });
    if (login.ok) token = ((await login.json()) as { data: { token: string } }).data.token;
    else await new Promise((r) => setTimeout(r, 100));
  }
  if (!token) throw new Error('could not log in as the bench admin');

  const client = await createBus({
    ...env.busOptions('bench-client'),
    logger,
  });
  const adminIdentity: CallerIdentity = {
    kind: 'user',
    user_id: 'bench',
    global_role: 'global_admin',
    memberships: [],
  };
  const headers = { authorization: `Bearer ${token}` };
  const natsRead = () => client.request(settingsSubjects.getSetting, { key: 'smtp.port' }, { identity: adminIdentity });
  const httpRead = async () => {
    const response = await fetch(`${base}/api/settings/smtp.port`, { headers });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    await response.arrayBuffer();
  };
  for (let i = 0; i < 1000; i += 1) {
    await natsRead();
    await httpRead();
  }
  const rows = [];
  for (const concurrency of [1, 16, 64]) {
    rows.push({
      path: 'NATS settings.setting.get',
      concurrency,
      ...(await measure(natsRead, { count: 20000, concurrency })),
    });
    rows.push({
      path: 'HTTP GET /api/settings/:key',
      concurrency,
      ...(await measure(httpRead, { count: 20000, concurrency })),
    });
  }
  printTable('Cached settings reads against the running processes (latency in ms)', rows);
  await client.drain();
} finally {
  for (const child of children) await child.stop();
  await env.cleanup();
}
