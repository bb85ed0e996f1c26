import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { createHostMap } from './createHostMap.ts';
import { eventually } from './eventually.ts';
import type { K8sObject } from './k8sObject.ts';
import { readImage } from './readImage.ts';
import { renderKustomization } from './renderKustomization.ts';
import { type Cluster, type Pod, RehearsalFailure, runCluster } from './runCluster.ts';
import { type Engine, startNatsCluster, startPostgres, startRedis } from './startEngines.ts';
import {
  adminSession,
  createApi,
  globalRegistrationToken,
  installEverything,
  modernToolCall,
  satellitesActive,
  sessionToolCalls,
} from './walkDayOne.ts';

export type RehearsalOptions = {
  /** The repository (the image's /app). */
  root: string;
  log(line: string): void;
  /** Changes the rendered objects before they run (a test breaks a manifest this way). */
  alter?(objects: K8sObject[]): void;
  /** Stops after the workloads started and were ready, before the day-one walk. */
  startOnly?: boolean;
};

const envFile = (path: string): Record<string, string> =>
  Object.fromEntries(
    readFileSync(path, 'utf8')
      .split('\n')
      .filter((line) => line.includes('=') && !line.startsWith('#'))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );

function printTable(
  cluster: Cluster,
  engines: Array<{ what: string; cluster: string; local: string }>,
  log: (line: string) => void,
) {
  log('  Cluster addresses and paths, and where the rehearsal runs them on this machine:');
  for (const engine of engines) log(`    ${engine.what.padEnd(44)} ${engine.cluster.padEnd(44)} -> ${engine.local}`);
  for (const t of cluster.translations)
    log(`    ${`${t.where} ${t.variable}`.padEnd(44)} ${t.from.padEnd(44)} -> ${t.to}`);
}

/**
 * One overlay of deploy/kubernetes, rehearsed: the secrets made by the documented command, the overlay
 * rendered as `kubectl apply -k` renders it, the engines the infrastructure files describe started on
 * this machine, every workload run (runCluster), then the day-one path walked.
 */
export async function rehearseKubernetes(overlay: string, options: RehearsalOptions): Promise<void> {
  const { root, log } = options;
  const scratch = mkdtempSync(join(tmpdir(), `orbital-rehearsal-${overlay}-`));
  // The engines and the pods run as their own users (postgres, the securityContext's), which must reach in.
  chmodSync(scratch, 0o755);
  const engines: Engine[] = [];
  let cluster: Cluster | undefined;
  try {
    // The repository's deploy/, without secrets an operator made in it: the rehearsal makes its own.
    const made =
      /(overlays\/[^/]+\/((secrets|credentials|satellite|redis)\.env|nats\.users\.values\.yaml)|deploy\/(\.env|nats\.conf))$/;
    cpSync(join(root, 'deploy'), join(scratch, 'deploy'), { recursive: true, filter: (source) => !made.test(source) });
    const overlayDir = join(scratch, 'deploy/kubernetes/overlays', overlay);
    const infrastructure = join(scratch, 'deploy/kubernetes/infrastructure');
    // Step 2 of the runbook, as written there.
    execFileSync(
      process.execPath,
      [
        join(root, 'scripts/credentials.ts'),
        '--kubernetes',
        overlayDir,
        '--public-url',
        'https://orbital.example.org',
        '--mcp-url',
        'https://mcp.example.org/mcp',
        '--admin-email',
        'admin@orbital.example.org',
      ],
      { stdio: 'pipe' },
    );
    const objects = renderKustomization(overlayDir);
    options.alter?.(objects);
    const namespace = objects.find((o) => o.kind === 'Deployment')?.metadata?.namespace;
    log(`${overlay}: rendered ${objects.length} objects (namespace ${namespace})`);

    // The engines, as infrastructure/ has the operator and charts make them.
    const hosts = createHostMap();
    const table: Array<{ what: string; cluster: string; local: string }> = [];
    const pgCluster = parse(readFileSync(join(infrastructure, 'postgres.cluster.yaml'), 'utf8')) as {
      metadata: { name: string };
      spec: { bootstrap: { initdb: { database: string; owner: string } } };
    };
    const pgName = pgCluster.metadata.name;
    const pgPassword = randomBytes(18).toString('base64url');
    const { database, owner } = pgCluster.spec.bootstrap.initdb;
    const postgres = await startPostgres({ dir: join(scratch, 'postgres'), database, owner, password: pgPassword });
    engines.push(postgres);
    hosts.add(`${pgName}-rw`, namespace, new Map([[5432, postgres.port]]));
    table.push({
      what: `PostgreSQL (CloudNativePG ${pgName})`,
      cluster: `${pgName}-rw:5432`,
      local: `127.0.0.1:${postgres.port}`,
    });
    const pgSecret: K8sObject = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: `${pgName}-app`, namespace },
      data: Object.fromEntries(
        Object.entries({
          username: owner,
          password: pgPassword,
          dbname: database,
          host: `${pgName}-rw`,
          port: '5432',
        }).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
      ),
    };

    const natsValues = parse(readFileSync(join(infrastructure, 'nats.values.yaml'), 'utf8')) as {
      config: {
        cluster?: { enabled?: boolean; replicas?: number };
        jetstream?: { fileStore?: { pvc?: { size?: string } } };
      };
    };
    const users = parse(readFileSync(join(overlayDir, 'nats.users.values.yaml'), 'utf8')) as {
      config: { merge: { authorization: unknown } };
    };
    const configMap = objects.find((o) => o.kind === 'ConfigMap' && o.metadata?.name === 'orbital-config');
    const streamReplicas = Number((configMap?.data as Record<string, string> | undefined)?.NATS_STREAM_REPLICAS ?? '1');
    // The chart's cluster, or the single server a development cluster installs (cluster.enabled=false).
    const servers =
      streamReplicas > 1 && natsValues.config.cluster?.enabled ? (natsValues.config.cluster.replicas ?? 3) : 1;
    // The chart's volume size ("20Gi") in the unit nats-server reads ("20GB"): streams reserve their size in it.
    const fileStore = (natsValues.config.jetstream?.fileStore?.pvc?.size ?? '10Gi').replace(/i$/, 'B');
    const nats = await startNatsCluster({
      dir: join(scratch, 'nats'),
      servers,
      authorization: users.config.merge.authorization,
      maxFileStore: fileStore,
    });
    engines.push(nats);
    hosts.add('orbital-nats', namespace, new Map([[4222, nats.port]]));
    table.push({
      what: `NATS (chart orbital-nats, ${servers} server${servers > 1 ? 's' : ''})`,
      cluster: 'orbital-nats:4222',
      local: `127.0.0.1:${nats.port}`,
    });

    const redisValues = parse(readFileSync(join(infrastructure, 'redis.values.yaml'), 'utf8')) as {
      auth: { existingSecret: string; existingSecretPasswordKey: string };
    };
    const redisSecret = objects.find(
      (o) => o.kind === 'Secret' && o.metadata?.name === redisValues.auth.existingSecret,
    );
    const redisPassword = (redisSecret?.data as Record<string, string> | undefined)?.[
      redisValues.auth.existingSecretPasswordKey
    ];
    if (!redisPassword) {
      throw new RehearsalFailure(
        `the Redis chart takes its password from Secret ${redisValues.auth.existingSecret}, which the overlay does not make`,
      );
    }
    const redis = await startRedis({
      dir: join(scratch, 'redis'),
      password: Buffer.from(redisPassword, 'base64').toString(),
    });
    engines.push(redis);
    hosts.add('orbital-redis-master', namespace, new Map([[6379, redis.port]]));
    table.push({
      what: 'Redis (chart orbital-redis)',
      cluster: 'orbital-redis-master:6379',
      local: `127.0.0.1:${redis.port}`,
    });

    cluster = await runCluster({
      objects,
      externalSecrets: [pgSecret],
      image: readImage(join(root, 'deploy/Dockerfile')),
      root,
      work: join(scratch, 'cluster'),
      hosts,
      maxReplicas: 2,
      log,
    });
    const running = cluster;
    const failed = running.failed;
    const workloads = objects.filter((o) => o.kind === 'Deployment');
    const started = Date.now();
    await Promise.race([
      failed,
      Promise.all(workloads.map((w) => running.waitReady('Deployment', w.metadata?.name ?? '', 180000))),
    ]);
    log(
      `  every Deployment ready in ${((Date.now() - started) / 1000).toFixed(1)} s: ${workloads.map((w) => `${w.metadata?.name} x${running.pods.filter((p) => p.owner === w).length}`).join(', ')}`,
    );
    printTable(running, table, log);
    if (options.startOnly) return;

    const secrets = envFile(join(overlayDir, 'secrets.env'));
    const api = createApi(running.serviceUrl('gateway-api'));
    const admin = await adminSession(
      api,
      { email: secrets.ADMIN_EMAIL as string, password: secrets.ADMIN_PASSWORD as string },
      failed,
    );
    log('  the database was set up by the rollout, and the first admin signed in');

    const satellites = objects.filter((o) => o.kind === 'StatefulSet' && o.metadata?.name === 'satellite');
    if (satellites.length === 0) {
      log('  no satellite in this overlay: the walk ends at the backend');
      return;
    }
    const satellitePods = running.pods.filter((p) => p.owner.kind === 'StatefulSet');
    // Step 4 of the runbook: a token per replica, in the Secret the StatefulSet mounts.
    const tokens: Record<string, string> = {};
    for (const pod of satellitePods)
      tokens[pod.name] = await globalRegistrationToken(api, admin, `rehearsal ${pod.name}`);
    running.apply({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'orbital-satellite-registration', namespace },
      data: Object.fromEntries(Object.entries(tokens).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
    });
    const names = satellitePods.map((p) => p.name);
    const registered = await satellitesActive(api, admin, names, failed, 180000);
    await running.waitReady('StatefulSet', 'satellite', 120000);
    log(`  satellites ${names.join(', ')} registered with their tokens and are active`);

    const { accessToken } = await installEverything(api, admin, failed);
    log('  server-everything installed from the catalogue and online');
    const satelliteUrl = running.serviceUrl('satellite');
    for (const pod of satellitePods) pod.requests = 0;
    for (let call = 0; call < 2 * satellitePods.length; call += 1) {
      const echoed = await eventually(
        'a tool call through Service satellite',
        async () => {
          const text = await modernToolCall(satelliteUrl, accessToken, `day one ${call}`);
          return text.includes(`day one ${call}`) ? text : undefined;
        },
        90000,
        failed,
      );
      if (!echoed) throw new Error('no echo');
    }
    const served = satellitePods.map((p) => `${p.name}: ${p.requests}`).join(', ');
    if (satellitePods.some((p) => p.requests === 0)) {
      throw new RehearsalFailure(
        `2026-07-28 calls through Service satellite did not spread over the replicas (${served})`,
      );
    }
    log(`  2026-07-28 tool calls through Service satellite answered, spread over the replicas (requests ${served})`);
    const sessionAnswers = await sessionToolCalls(running.serviceUrl('satellite-sessions'), accessToken, 'session', 3);
    if (!sessionAnswers.every((text, i) => text.includes(`session ${i}`))) {
      throw new RehearsalFailure(
        `a 2025 session through Service satellite-sessions lost its calls: ${sessionAnswers.join(' | ')}`,
      );
    }
    log('  a 2025 session through Service satellite-sessions kept its replica for all its calls');

    // A reschedule: the replica comes back with its volume and is the same satellite, without a token.
    const first = satellitePods[0] as Pod;
    const before = registered.find((s) => s.name === first.name);
    running.apply({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'orbital-satellite-registration', namespace },
      data: {},
    });
    await running.restart(first);
    await running.waitReady('StatefulSet', 'satellite', 120000);
    const after = await satellitesActive(api, admin, names, failed);
    const list = await api<Array<{ name: string }>>('GET', '/api/satellites', { token: admin });
    if (
      after.find((s) => s.name === first.name)?.id !== before?.id ||
      list.filter((s) => s.name === first.name).length !== 1
    ) {
      throw new RehearsalFailure(`${first.name} came back as another satellite after a restart`);
    }
    log(`  ${first.name} restarted without its token and came back as the same satellite (${before?.id})`);
  } catch (error) {
    if (cluster) {
      for (const pod of cluster.pods.filter(
        (p) => p.restarts > 0 || !p.ready || p.owner.metadata?.name === 'satellite',
      )) {
        log(`  ${pod.name} (${pod.restarts} restarts, ${pod.ready ? 'ready' : 'not ready'}), last lines:`);
        for (const line of pod.output.slice(-12)) log(`    | ${line.slice(0, 300)}`);
      }
    }
    throw error;
  } finally {
    await cluster?.stop();
    for (const engine of engines.reverse()) await engine.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}
