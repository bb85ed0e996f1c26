import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, waitForLine } from '@orbital/testing';

/** How long an engine may take to write its ready line: a cold start on a loaded machine is slow. */
const engineStartMs = 60000;

/** A server the rehearsal runs on this machine in place of one the cluster (or compose) would run. */
export type Engine = { name: string; port: number; stop(): Promise<void> };

function stopper(children: ChildProcess[]): () => Promise<void> {
  return async () => {
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            const timer = setTimeout(() => child.kill('SIGKILL'), 10000);
            child.once('exit', () => {
              clearTimeout(timer);
              resolve();
            });
            child.kill('SIGTERM');
          }),
      ),
    );
  };
}

/**
 * NATS with JetStream as the chart runs it: `servers` nodes in one cluster (a stream with 3 replicas
 * needs 3 servers), with the authorization block of the chart values merged into the configuration.
 */
export async function startNatsCluster(options: {
  dir: string;
  servers: number;
  authorization: unknown;
  /** JetStream's file store per server (the chart's volume size): streams reserve their whole size in it. */
  maxFileStore: string;
}): Promise<Engine> {
  const binary = process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server';
  const clients = await Promise.all(Array.from({ length: options.servers }, () => freePort()));
  const routes = await Promise.all(Array.from({ length: options.servers }, () => freePort()));
  const children: ChildProcess[] = [];
  const ready: Promise<void>[] = [];
  for (let index = 0; index < options.servers; index += 1) {
    const store = join(options.dir, `nats-${index}`);
    mkdirSync(store, { recursive: true });
    const cluster =
      options.servers > 1
        ? `cluster {
  name: orbital-nats
  listen: "127.0.0.1:${routes[index]}"
  routes: [${routes.map((port) => `"nats-route://127.0.0.1:${port}"`).join(', ')}]
}`
        : '';
    const file = join(options.dir, `nats-${index}.conf`);
    // NATS configuration accepts JSON for a block, which is how the chart's values merge into it.
    writeFileSync(
      file,
      `server_name: orbital-nats-${index}
listen: "127.0.0.1:${clients[index]}"
jetstream { store_dir: ${JSON.stringify(store)}, max_file_store: ${options.maxFileStore}, max_memory_store: 256MB }
${cluster}
authorization: ${JSON.stringify(options.authorization)}
`,
    );
    const child = spawn(binary, ['-c', file], { stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    ready.push(waitForLine(child, /Server is ready/, `nats-server ${index}`, engineStartMs));
  }
  try {
    await Promise.all(ready);
  } catch (error) {
    await stopper(children)();
    throw error;
  }
  return { name: 'nats', port: clients[0] as number, stop: stopper(children) };
}

/** Redis with a password, as the chart sets it from its existingSecret. */
export async function startRedis(options: { dir: string; password?: string }): Promise<Engine> {
  const port = await freePort();
  mkdirSync(options.dir, { recursive: true });
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    options.dir,
    '--save',
    '',
    '--appendonly',
    'yes',
  ];
  if (options.password) args.push('--requirepass', options.password);
  const child = spawn(process.env.REDIS_SERVER_BIN ?? 'redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  await waitForLine(child, /Ready to accept connections/, 'redis-server', engineStartMs);
  return { name: 'redis', port, stop: stopper([child]) };
}

function postgresBinaries(): string {
  const root = '/usr/lib/postgresql';
  const version = readdirSync(root)
    .filter((entry) => existsSync(join(root, entry, 'bin/initdb')))
    .sort((a, b) => Number(b) - Number(a))[0];
  if (!version) throw new Error('PostgreSQL binaries are not installed (/usr/lib/postgresql/*/bin)');
  return join(root, version, 'bin');
}

/**
 * PostgreSQL as the CloudNativePG operator bootstraps it: one database owned by one user with a password,
 * TLS on (self-signed, as the operator's own certificate is to a client that does not verify it). initdb
 * refuses to run as root, so as root it runs as the postgres user.
 */
export async function startPostgres(options: {
  dir: string;
  database: string;
  owner: string;
  password: string;
}): Promise<Engine> {
  const bin = postgresBinaries();
  const port = await freePort();
  const data = join(options.dir, 'data');
  mkdirSync(options.dir, { recursive: true });
  const asRoot = process.getuid?.() === 0;
  const uid = asRoot ? Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim()) : undefined;
  const gid = asRoot ? Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim()) : undefined;
  if (uid !== undefined && gid !== undefined) chownSync(options.dir, uid, gid);
  const as = uid !== undefined && gid !== undefined ? { uid, gid } : {};
  execFileSync(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync'], {
    ...as,
    stdio: 'pipe',
  });
  execFileSync(
    'openssl',
    [
      'req',
      '-new',
      '-x509',
      '-days',
      '2',
      '-nodes',
      '-subj',
      '/CN=orbital-postgres-rw',
      '-keyout',
      join(data, 'server.key'),
      '-out',
      join(data, 'server.crt'),
    ],
    { ...as, stdio: 'pipe' },
  );
  chmodSync(join(data, 'server.key'), 0o600);
  // Clients from this machine authenticate with the password, as the operator's pg_hba demands.
  writeFileSync(
    join(data, 'pg_hba.conf'),
    'local all postgres trust\nhost all postgres 127.0.0.1/32 trust\nhost all all 127.0.0.1/32 scram-sha-256\n',
  );
  if (uid !== undefined && gid !== undefined) chownSync(join(data, 'pg_hba.conf'), uid, gid);
  const child = spawn(
    join(bin, 'postgres'),
    [
      '-D',
      data,
      '-p',
      String(port),
      '-h',
      '127.0.0.1',
      '-k',
      options.dir,
      '-c',
      'ssl=on',
      '-c',
      'fsync=off',
      '-c',
      'max_connections=200',
    ],
    { ...as, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  await waitForLine(child, /ready to accept connections/, 'postgres', engineStartMs);
  const psql = (sql: string) =>
    execFileSync(
      join(bin, 'psql'),
      ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-d', 'postgres', '-v', 'ON_ERROR_STOP=1', '-c', sql],
      {
        ...as,
        stdio: 'pipe',
      },
    );
  const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;
  const ident = (text: string) => `"${text.replaceAll('"', '""')}"`;
  psql(`CREATE ROLE ${ident(options.owner)} LOGIN PASSWORD ${literal(options.password)}`);
  psql(`CREATE DATABASE ${ident(options.database)} OWNER ${ident(options.owner)}`);
  return { name: 'postgres', port, stop: stopper([child]) };
}

/** nats-server with a configuration file as given (compose mounts one), on a local port and folder. */
export async function startNatsWithConfiguration(options: {
  dir: string;
  configuration: string;
  /** The container path of the JetStream folder (a volume), which becomes `dir`. */
  storeDir: string;
}): Promise<Engine> {
  const port = await freePort();
  mkdirSync(options.dir, { recursive: true });
  const file = join(options.dir, 'nats.conf');
  const configuration = options.configuration.replaceAll(
    new RegExp(`store_dir:\\s*"?${options.storeDir.replaceAll('/', '\\/')}"?`, 'g'),
    `store_dir: ${JSON.stringify(join(options.dir, 'store'))}`,
  );
  writeFileSync(file, `listen: "127.0.0.1:${port}"\n${configuration}`);
  const child = spawn(process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server', ['-c', file], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await waitForLine(child, /Server is ready/, 'nats-server', engineStartMs);
  return { name: 'nats', port, stop: stopper([child]) };
}
