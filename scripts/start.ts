/**
 * `npm start`: the whole platform on this machine, in one terminal. Makes sure PostgreSQL, Redis and
 * NATS are up, creates the `orbital` database if it is missing, generates development secrets once
 * (kept in .orbital/dev.env so encrypted data stays readable across restarts), starts every process
 * with its output prefixed, and stops them all cleanly on Ctrl-C.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import pg from 'pg';
import {
  developmentAdminEmail,
  developmentSecretNames,
  type PlatformProcess,
  platformProcesses,
} from './platformProcesses.ts';

const root = resolve(import.meta.dirname, '..');
const stateDir = resolve(root, '.orbital');
const devEnvFile = resolve(stateDir, 'dev.env');

execFileSync('bash', [resolve(root, 'scripts/ensure-infrastructure.sh')], { stdio: 'inherit' });

function readDevEnv(): Record<string, string> {
  if (!existsSync(devEnvFile)) return {};
  return Object.fromEntries(
    readFileSync(devEnvFile, 'utf8')
      .split('\n')
      .filter((line) => line.includes('='))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
}

const devEnv = readDevEnv();
let changed = false;
for (const name of developmentSecretNames) {
  if (!devEnv[name]) {
    devEnv[name] = randomBytes(32).toString('base64url');
    changed = true;
  }
}
if (changed) {
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  writeFileSync(
    devEnvFile,
    `${Object.entries(devEnv)
      .map(([k, v]) => `${k}=${v}`)
      .join('\n')}\n`,
    { mode: 0o600 },
  );
}

const baseEnv: Record<string, string> = {
  POSTGRES_HOST: '127.0.0.1',
  POSTGRES_PORT: '5432',
  POSTGRES_DATABASE: 'orbital',
  POSTGRES_USER: 'postgres',
  NATS_URL: 'nats://127.0.0.1:4222',
  REDIS_URL: 'redis://127.0.0.1:6379',
  ADMIN_EMAIL: developmentAdminEmail,
  ...devEnv,
  // Whatever the person exported wins over the development defaults.
  ...(Object.fromEntries(Object.entries(process.env).filter(([, v]) => v !== undefined)) as Record<string, string>),
};

async function ensureDatabase() {
  const admin = new pg.Client({
    host: baseEnv.POSTGRES_HOST,
    port: Number(baseEnv.POSTGRES_PORT),
    user: baseEnv.POSTGRES_USER,
    password: baseEnv.POSTGRES_PASSWORD,
    database: 'postgres',
  });
  await admin.connect();
  const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [baseEnv.POSTGRES_DATABASE]);
  if (exists.rowCount === 0) {
    await admin.query(`CREATE DATABASE "${String(baseEnv.POSTGRES_DATABASE).replaceAll('"', '""')}"`);
    console.log(`created database ${baseEnv.POSTGRES_DATABASE}`);
  }
  await admin.end();
}
await ensureDatabase();

/** The web console gateway-api serves at `/`: built on every start (about a second), so it matches the sources. */
function buildConsole() {
  const started = Date.now();
  execFileSync(process.execPath, [resolve(root, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn'], {
    cwd: resolve(root, 'console'),
    stdio: 'inherit',
  });
  console.log(`built the web console in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
buildConsole();

const children: Array<{ name: string; child: ChildProcess }> = [];
const width = Math.max(...platformProcesses.map((p) => p.name.length));
let stopping = false;
const apiPort = baseEnv.PORT ?? '3000';
const satellitePort = baseEnv.SATELLITE_PORT ?? '3001';
const apiUrl = `http://127.0.0.1:${apiPort}`;
const satelliteUrl = `http://127.0.0.1:${satellitePort}`;

function startChild(proc: PlatformProcess, env: Record<string, string>) {
  const child = spawn(process.execPath, [resolve(root, proc.entry)], {
    cwd: root,
    env: { ...baseEnv, ...proc.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Own process group: Ctrl-C reaches only this launcher, which stops each child once, in order.
    detached: true,
  });
  const prefix = `[${proc.name.padEnd(width)}]`;
  for (const stream of [child.stdout, child.stderr]) {
    if (stream) createInterface({ input: stream }).on('line', (line) => console.log(`${prefix} ${line}`));
  }
  child.on('exit', (code, signal) => {
    console.log(`${prefix} exited (${signal ?? code})`);
    if (!stopping) void stopAll(1);
  });
  children.push({ name: proc.name, child });
}

/** The few fields of gateway-api answers the launcher reads. */
type ApiBody = { initialized?: boolean; message?: string; data?: { token?: string } };

async function requestJson(
  method: string,
  path: string,
  body?: unknown,
  token?: string,
): Promise<{ status: number; json: ApiBody }> {
  const response = await fetch(`${apiUrl}${path}`, {
    method,
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, json: ((await response.json().catch(() => null)) ?? {}) as ApiBody };
}

async function retry<T>(what: string, attempt: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 120; i += 1) {
    const value = await attempt().catch(() => undefined);
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`${what} did not succeed within a minute`);
}

/**
 * The satellite joins the way a person would join it: the database is set up on first start, the
 * development admin makes a global registration token, and the satellite registers with it. Its
 * credentials stay in .orbital/satellite, so later starts need no token.
 */
async function startSatellite(proc: PlatformProcess) {
  await retry('gateway-api readiness', async () => ((await fetch(`${apiUrl}/readyz`)).ok ? true : undefined));
  const status = await requestJson('GET', '/api/db/status');
  if (status.json.initialized === false) {
    const setup = await requestJson('POST', '/api/db/setup', { type: 'postgresql' });
    console.log(`database setup: ${setup.json.message ?? setup.status}`);
  }
  const stateDirectory = resolve(stateDir, 'satellite');
  const env: Record<string, string> = {
    PORT: satellitePort,
    BACKEND_URL: apiUrl,
    SATELLITE_STATE_DIR: stateDirectory,
    SATELLITE_PUBLIC_URL: satelliteUrl,
  };
  if (!existsSync(resolve(stateDirectory, 'credentials.json'))) {
    const token = await retry('the development admin login', async () => {
      const login = await requestJson('POST', '/api/auth/login', {
        email: baseEnv.ADMIN_EMAIL,
        password: baseEnv.ADMIN_PASSWORD,
      });
      return login.status === 200 ? login.json.data?.token : undefined;
    });
    const created = await requestJson('POST', '/api/satellites/registration-tokens', {}, token);
    if (created.status !== 201)
      throw new Error(`could not create a registration token: ${JSON.stringify(created.json)}`);
    const registrationToken = created.json.data?.token;
    if (!registrationToken) throw new Error('the registration token answer had no token');
    env.SATELLITE_REGISTRATION_TOKEN = registrationToken;
  }
  startChild(proc, env);
}

for (const proc of platformProcesses.filter((p) => p.name !== 'satellite')) {
  startChild(proc, proc.name === 'gateway-api' ? { PORT: apiPort } : {});
}
const satelliteProcess = platformProcesses.find((p) => p.name === 'satellite');
if (satelliteProcess) {
  startSatellite(satelliteProcess).catch((error: unknown) => {
    console.error(`the satellite could not join: ${(error as Error).message}`);
    void stopAll(1);
  });
}

console.log(
  `\nOrbital is starting. API: ${apiUrl}  (docs at /documentation). Ctrl-C stops everything.\n` +
    `MCP clients: point them at ${satelliteUrl}/mcp (Streamable HTTP).\n` +
    `Log in as ${baseEnv.ADMIN_EMAIL}; the password is ADMIN_PASSWORD in ${devEnvFile}:\n` +
    `  curl -X POST ${apiUrl}/api/auth/login -H 'content-type: application/json' \\\n` +
    `    -d "{\\"email\\":\\"${baseEnv.ADMIN_EMAIL}\\",\\"password\\":\\"$(grep ^ADMIN_PASSWORD= ${devEnvFile} | cut -d= -f2-)\\"}"\n`,
);

async function stopAll(exitCode: number) {
  if (stopping) return;
  stopping = true;
  const running = children.filter(({ child }) => child.exitCode === null && child.signalCode === null);
  await Promise.all(
    running.map(
      ({ child }) =>
        new Promise<void>((done) => {
          const timer = setTimeout(() => child.kill('SIGKILL'), 15000);
          child.once('exit', () => {
            clearTimeout(timer);
            done();
          });
          child.kill('SIGTERM');
        }),
    ),
  );
  process.exit(exitCode);
}

process.on('SIGINT', () => void stopAll(0));
// If the launcher itself dies, leave nothing behind.
process.on('exit', () => {
  for (const { child } of children) if (child.exitCode === null) child.kill('SIGKILL');
});
process.on('SIGTERM', () => void stopAll(0));
