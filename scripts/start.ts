/**
 * `npm start`: the whole platform on this machine, in one terminal. Makes sure PostgreSQL, Redis and
 * NATS are up, creates the `orbital` database if it is missing, generates development secrets once
 * (kept in .orbital/dev.env so encrypted data stays readable across restarts), builds the web console,
 * starts every process, sets the database up on first start, registers the development satellite, and
 * stops everything cleanly on Ctrl-C. On a terminal each log event is one readable line; otherwise the
 * processes' JSON lines pass through untouched, for tools. `npm start -- --reset` starts afresh.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { generateIdentityKey, generateNatsUser, natsServerConfig } from '@orbital/bus';
import pg from 'pg';
import { findTakenPorts } from './findTakenPorts.ts';
import { formatLogLine } from './formatLogLine.ts';
import {
  developmentAdminEmail,
  developmentSecretNames,
  type PlatformProcess,
  platformProcesses,
} from './platformProcesses.ts';

const startedAt = Date.now();
const root = resolve(import.meta.dirname, '..');
const stateDir = resolve(root, '.orbital');
const devEnvFile = resolve(stateDir, 'dev.env');
const satelliteStateDir = resolve(stateDir, 'satellite');
const reset = process.argv.includes('--reset');
const readable = process.stdout.isTTY === true;
/**
 * `ORBITAL_EMBEDDINGS=local`: the local embeddings process starts too (services/embeddings, on
 * EMBEDDINGS_PORT, 3002 by default) and the development satellite ranks discovery by meaning with it.
 * Off by default: the model costs CPU for every tool description and request.
 */
const localEmbeddings = process.env.ORBITAL_EMBEDDINGS === 'local';
const embeddingsPort = process.env.EMBEDDINGS_PORT ?? '3002';
const processes: PlatformProcess[] = [
  ...(localEmbeddings
    ? [{ name: 'embeddings', entry: 'services/embeddings/src/main.ts', env: { PORT: embeddingsPort } }]
    : []),
  ...platformProcesses,
];
const width = Math.max('npm start'.length, ...processes.map((p) => p.name.length));

/** The launcher's own lines: readable on a terminal, JSON like the processes' otherwise. */
function say(msg: string, level: 'info' | 'warn' | 'error' = 'info') {
  if (readable) {
    const line = formatLogLine(
      'npm start',
      JSON.stringify({ level: { info: 30, warn: 40, error: 50 }[level], time: Date.now(), msg }),
      width,
      true,
    );
    (level === 'info' ? console.log : console.error)(line);
  } else {
    console.log(
      JSON.stringify({ level: { info: 30, warn: 40, error: 50 }[level], time: Date.now(), name: 'npm-start', msg }),
    );
  }
}

/** Stops before anything starts, saying what is wrong and what to do. */
function refuse(lines: string[]): never {
  console.error(`\n${lines.join('\n')}\n`);
  process.exit(1);
}

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

const connection = {
  host: process.env.POSTGRES_HOST ?? '127.0.0.1',
  port: Number(process.env.POSTGRES_PORT ?? '5432'),
  user: process.env.POSTGRES_USER ?? 'postgres',
  password: process.env.POSTGRES_PASSWORD,
};
const databaseName = process.env.POSTGRES_DATABASE ?? 'orbital';

/** Whether the database exists and was set up (with the secrets of some dev.env). */
async function databaseState(): Promise<'missing' | 'empty' | 'set up'> {
  const admin = new pg.Client({ ...connection, database: 'postgres' });
  await admin.connect();
  try {
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [databaseName]);
    if (exists.rowCount === 0) return 'missing';
  } finally {
    await admin.end();
  }
  const db = new pg.Client({ ...connection, database: databaseName });
  await db.connect();
  try {
    const setUp = await db.query(
      "SELECT 1 FROM information_schema.tables WHERE table_schema = 'public' AND table_name = 'orbital_database_setup'",
    );
    return setUp.rowCount === 0 ? 'empty' : 'set up';
  } finally {
    await db.end();
  }
}

async function dropDatabase() {
  const admin = new pg.Client({ ...connection, database: 'postgres' });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${databaseName.replaceAll('"', '""')}" WITH (FORCE)`);
  await admin.end();
}

const apiPort = process.env.PORT ?? '3000';
const satellitePort = process.env.SATELLITE_PORT ?? '3001';
// The platform's own NATS server, with a user per process (below), beside the machine's open one.
const natsPort = process.env.ORBITAL_NATS_PORT ?? '4322';
const taken = await findTakenPorts([
  Number(apiPort),
  Number(satellitePort),
  Number(natsPort),
  ...(localEmbeddings ? [Number(embeddingsPort)] : []),
]);
if (taken.length > 0) {
  refuse([
    `Port ${taken.join(' and ')} ${taken.length > 1 ? 'are' : 'is'} already in use: is another \`npm start\` running?`,
    `  See what listens there:  ss -ltnp '( ${taken.map((p) => `sport = :${p}`).join(' or ')} )'`,
    '  Stop it (Ctrl-C in its terminal), or run this one on other ports:',
    `  PORT=${Number(apiPort) + 100} SATELLITE_PORT=${Number(satellitePort) + 100} ORBITAL_NATS_PORT=${Number(natsPort) + 100} npm start`,
  ]);
}

if (reset) {
  say(`--reset: dropping database ${databaseName} and ${stateDir}`, 'warn');
  await dropDatabase();
  rmSync(stateDir, { recursive: true, force: true });
}

const devEnv = readDevEnv();
const missing = developmentSecretNames.filter((name) => !devEnv[name]);
const state = await databaseState();
if (missing.length > 0 && state === 'set up') {
  refuse([
    `${devEnvFile} ${existsSync(devEnvFile) ? `lacks ${missing.join(', ')}` : 'is missing'}, but database ${databaseName} was set up with the secrets it held.`,
    'New secrets would not open it: the admin password would be wrong (and the login locked after 5 tries),',
    'encrypted settings unreadable, and the development satellite unknown.',
    '  Got the file back (a backup, another checkout)? Put it at .orbital/dev.env and run npm start again.',
    `  Otherwise start afresh; this deletes database ${databaseName} and .orbital/:  npm start -- --reset`,
  ]);
}
let changed = false;
for (const name of missing) {
  devEnv[name] = randomBytes(32).toString('base64url');
  changed = true;
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
  say(`generated development secrets and the admin password into ${devEnvFile}`);
}
if (state === 'missing') {
  const admin = new pg.Client({ ...connection, database: 'postgres' });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${databaseName.replaceAll('"', '""')}"`);
  await admin.end();
  say(`created database ${databaseName}`);
}
// A satellite registered against a database that no longer exists would be refused: it registers anew.
if (state !== 'set up' && existsSync(satelliteStateDir)) rmSync(satelliteStateDir, { recursive: true, force: true });

const baseEnv: Record<string, string> = {
  POSTGRES_HOST: connection.host,
  POSTGRES_PORT: String(connection.port),
  POSTGRES_DATABASE: databaseName,
  POSTGRES_USER: connection.user,
  NATS_URL: `nats://127.0.0.1:${natsPort}`,
  REDIS_URL: 'redis://127.0.0.1:6379',
  ADMIN_EMAIL: developmentAdminEmail,
  ...devEnv,
  // Whatever the person exported wins over the development defaults.
  ...(Object.fromEntries(Object.entries(process.env).filter(([, v]) => v !== undefined)) as Record<string, string>),
};

/**
 * Each process's key for signing caller identities, made afresh on every start: a signed identity
 * lives a minute, so nothing needs the keys of a previous run, and none are written to disk.
 */
const identityKeys = new Map(
  platformProcesses.flatMap((p) =>
    p.process ? [[p.process, generateIdentityKey(p.process, `${p.process}-dev-${startedAt}`)]] : [],
  ),
);
const identityPublicKeys = [...identityKeys.values()].map((pair) => pair.publicKey).join(',');

/**
 * The platform's NATS server: each process connects as its own user (an NKey made afresh on every start;
 * the configuration holds only public keys) with the permissions generated from the contract catalogue,
 * and nobody connects without a key. JetStream keeps its data in .orbital/nats across starts.
 */
const natsUsers = new Map(platformProcesses.flatMap((p) => (p.process ? [[p.process, generateNatsUser()]] : [])));
async function startNats(): Promise<ChildProcess> {
  const configFile = resolve(stateDir, 'nats.conf');
  mkdirSync(resolve(stateDir, 'nats'), { recursive: true, mode: 0o700 });
  writeFileSync(
    configFile,
    natsServerConfig({
      users: Object.fromEntries([...natsUsers].map(([name, user]) => [name, user.publicKey])),
      server: [
        `listen: "127.0.0.1:${natsPort}"`,
        `jetstream { store_dir: ${JSON.stringify(resolve(stateDir, 'nats'))} }`,
      ].join('\n'),
    }),
    { mode: 0o600 },
  );
  const child = spawn(process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server', ['-c', configFile], {
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  await new Promise<void>((done, fail) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Server is ready')) done();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => fail(new Error(`nats-server exited (${code}):\n${output}`)));
  });
  // Its log is for when something is wrong: permission refusals are worth seeing.
  for (const stream of [child.stdout, child.stderr]) {
    if (!stream) continue;
    createInterface({ input: stream }).on('line', (line) => {
      if (/violation|error/i.test(line)) say(`nats: ${line}`, 'warn');
    });
  }
  say(`NATS for the platform on 127.0.0.1:${natsPort} (users and permissions from the contract catalogue)`);
  return child;
}
const natsChild = await startNats();

/** The web console gateway-api serves at `/`: built on every start (about a second), so it matches the sources. */
function buildConsole() {
  const started = Date.now();
  execFileSync(process.execPath, [resolve(root, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn'], {
    cwd: resolve(root, 'console'),
    stdio: 'inherit',
  });
  say(`built the web console in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
buildConsole();

const children: Array<{ name: string; child: ChildProcess }> = [];
let stopping = false;
const apiUrl = `http://127.0.0.1:${apiPort}`;
const consoleUrl = `http://localhost:${apiPort}`;
const satelliteUrl = `http://127.0.0.1:${satellitePort}`;
const ready = new Set<string>();

function startChild(proc: PlatformProcess, env: Record<string, string>) {
  const signing = proc.process ? identityKeys.get(proc.process) : undefined;
  const natsUser = proc.process ? natsUsers.get(proc.process) : undefined;
  const identityEnv = {
    ...(signing ? { IDENTITY_SIGNING_KEY: signing.signingKey, IDENTITY_PUBLIC_KEYS: identityPublicKeys } : {}),
    ...(natsUser ? { NATS_NKEY_SEED: natsUser.seed } : {}),
  };
  const child = spawn(process.execPath, [resolve(root, proc.entry)], {
    cwd: root,
    env: { ...baseEnv, ...proc.env, ...identityEnv, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Own process group: Ctrl-C reaches only this launcher, which stops each child once, in order.
    detached: true,
  });
  for (const stream of [child.stdout, child.stderr]) {
    if (!stream) continue;
    createInterface({ input: stream }).on('line', (line) => {
      console.log(readable ? formatLogLine(proc.name, line, width, true) : line);
      if (line.includes('"msg":"ready"')) onReady(proc.name);
    });
  }
  child.on('exit', (code, signal) => {
    if (!stopping) say(`${proc.name} exited (${signal ?? code}); stopping everything`, 'error');
    if (!stopping) void stopAll(1);
  });
  children.push({ name: proc.name, child });
}

function onReady(name: string) {
  ready.add(name);
  if (ready.size !== processes.length) return;
  const seconds = ((Date.now() - startedAt) / 1000).toFixed(1);
  const banner = [
    `Orbital is ready (${seconds} s after npm start). Ctrl-C stops everything.`,
    `  Console:  ${consoleUrl}  (log in as ${baseEnv.ADMIN_EMAIL}; the password is ADMIN_PASSWORD in .orbital/dev.env)`,
    `  API:      ${consoleUrl}/api, documented at ${consoleUrl}/documentation`,
    `  MCP:      ${satelliteUrl}/mcp  (Streamable HTTP; the console's "Connect a client" has each client's configuration)`,
  ];
  if (readable) console.log(`\n${banner.join('\n')}\n`);
  else say(banner.join(' | '));
}

/** The few fields of gateway-api answers the launcher reads. */
type ApiBody = {
  initialized?: boolean;
  message?: string;
  data?: { token?: string; value?: string };
  error?: { message?: string; details?: { retry_after_seconds?: number } };
};

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
 * The development admin's session, for the launcher's own setup steps. A refused password is not
 * retried (each try counts toward the login lock): it means dev.env and the database disagree.
 */
async function adminToken(): Promise<string> {
  for (let attempt = 0; ; attempt += 1) {
    const login = await requestJson('POST', '/api/auth/login', {
      email: baseEnv.ADMIN_EMAIL,
      password: baseEnv.ADMIN_PASSWORD,
    });
    if (login.status === 200 && login.json.data?.token) return login.json.data.token;
    if (login.status === 429) {
      throw new Error(
        `the development admin's login is locked for ${login.json.error?.details?.retry_after_seconds ?? 900} s after failed tries; wait, or start afresh with npm start -- --reset`,
      );
    }
    // Just after setup the admin may take a moment to exist; two more tries, then it is a mismatch.
    if (attempt >= 2) {
      throw new Error(
        'the development admin could not log in: ADMIN_PASSWORD in .orbital/dev.env is not the password this database knows. Restore the matching .orbital/dev.env, or start afresh with npm start -- --reset',
      );
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/**
 * The satellite joins the way a person would join it: the database is set up on first start, the
 * development admin makes a global registration token, and the satellite registers with it. Its
 * credentials stay in .orbital/satellite, so later starts need no token.
 */
async function startSatellite(proc: PlatformProcess) {
  await retry('gateway-api readiness', async () => ((await fetch(`${apiUrl}/readyz`)).ok ? true : undefined));
  const status = await requestJson('GET', '/api/db/status');
  let firstStart = false;
  if (status.json.initialized === false) {
    const setup = await requestJson('POST', '/api/db/setup', { type: 'postgresql' });
    say(`database setup: ${setup.json.message ?? setup.status}`);
    firstStart = true;
  }
  const env: Record<string, string> = {
    PORT: satellitePort,
    BACKEND_URL: apiUrl,
    SATELLITE_STATE_DIR: satelliteStateDir,
    SATELLITE_PUBLIC_URL: satelliteUrl,
    ...(localEmbeddings
      ? {
          SATELLITE_EMBEDDINGS_URL: `http://127.0.0.1:${embeddingsPort}/v1`,
          SATELLITE_EMBEDDINGS_MODEL: 'universal-sentence-encoder-lite',
        }
      : {}),
  };
  if (firstStart || !existsSync(resolve(satelliteStateDir, 'credentials.json'))) {
    const token = await adminToken();
    if (firstStart) {
      // The frontend's address is the console this gateway serves (the setting's default names a port
      // where nothing runs here).
      // Likewise the callbacks of sign-in with outside accounts: at this gateway, to register at the provider.
      const local = {
        'global.page_url': ['http://localhost:5173', consoleUrl],
        'repohost.oauth.callback_url': [
          'http://localhost:3000/api/auth/repohost/callback',
          `${consoleUrl}/api/auth/repohost/callback`,
        ],
        'oidc.callback_url': ['http://localhost:3000/api/auth/oidc/callback', `${consoleUrl}/api/auth/oidc/callback`],
      };
      for (const [key, [fromDefault, here]] of Object.entries(local)) {
        const current = await requestJson('GET', `/api/settings/${key}`, undefined, token);
        if (current.json.data?.value === fromDefault && fromDefault !== here) {
          await requestJson('PUT', `/api/settings/${key}`, { value: here }, token);
        }
      }
    }
    if (!existsSync(resolve(satelliteStateDir, 'credentials.json'))) {
      const created = await requestJson('POST', '/api/satellites/registration-tokens', {}, token);
      if (created.status !== 201 || !created.json.data?.token) {
        throw new Error(`could not create a registration token: ${JSON.stringify(created.json)}`);
      }
      env.SATELLITE_REGISTRATION_TOKEN = created.json.data.token;
    }
  }
  startChild(proc, env);
}

say(`starting ${processes.map((p) => p.name).join(', ')}`);
for (const proc of processes.filter((p) => p.name !== 'satellite')) {
  startChild(proc, proc.name === 'gateway-api' ? { PORT: apiPort } : {});
}
const satelliteProcess = platformProcesses.find((p) => p.name === 'satellite');
if (satelliteProcess) {
  startSatellite(satelliteProcess).catch((error: unknown) => {
    say(`the satellite could not join: ${(error as Error).message}`, 'error');
    void stopAll(1);
  });
}

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
  // NATS last, once every service has drained through it.
  if (natsChild.exitCode === null) {
    await new Promise<void>((done) => {
      natsChild.once('exit', () => done());
      natsChild.kill('SIGTERM');
    });
  }
  process.exit(exitCode);
}

process.on('SIGINT', () => void stopAll(0));
// If the launcher itself dies, leave nothing behind.
process.on('exit', () => {
  for (const { child } of children) if (child.exitCode === null) child.kill('SIGKILL');
  if (natsChild.exitCode === null) natsChild.kill('SIGKILL');
});
process.on('SIGTERM', () => void stopAll(0));
// The terminal closed: stop as on Ctrl-C, or the processes would outlive it.
process.on('SIGHUP', () => void stopAll(0));
