import { execFileSync } from 'node:child_process';
import { appendFileSync, chmodSync, cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { composeObjects, readEnvFile } from './composeObjects.ts';
import { createHostMap } from './createHostMap.ts';
import { eventually } from './eventually.ts';
import { readImage } from './readImage.ts';
import type { RehearsalOptions } from './rehearseKubernetes.ts';
import { type Cluster, RehearsalFailure, runCluster } from './runCluster.ts';
import { type Engine, startNatsWithConfiguration, startPostgres, startRedis } from './startEngines.ts';
import {
  adminSession,
  createApi,
  globalRegistrationToken,
  installEverything,
  modernToolCall,
  satellitesActive,
} from './walkDayOne.ts';

/**
 * deploy/compose.yaml rehearsed the way deploy/README.md runs it: `npm run credentials -- --compose`,
 * `docker compose up` (every service with what the file gives it, the engines on this machine), the first
 * admin, a registration token appended to .env and the satellite brought up again with it, and a tool
 * call through the satellite's published port.
 */
export async function rehearseCompose(options: RehearsalOptions): Promise<void> {
  const { root, log } = options;
  const scratch = mkdtempSync(join(tmpdir(), 'orbital-rehearsal-compose-'));
  chmodSync(scratch, 0o755);
  const engines: Engine[] = [];
  const clusters: Cluster[] = [];
  try {
    cpSync(join(root, 'deploy'), join(scratch, 'deploy'), {
      recursive: true,
      filter: (source) => !/deploy\/(\.env|nats\.conf)$/.test(source),
    });
    const project = join(scratch, 'deploy');
    execFileSync(
      process.execPath,
      [join(root, 'scripts/credentials.ts'), '--compose', project, '--admin-email', 'admin@orbital.example.org'],
      { stdio: 'pipe' },
    );
    const composeFile = join(project, 'compose.yaml');
    const image = 'orbital:local';
    const first = composeObjects(composeFile, project, image);
    options.alter?.(first.objects);
    log(
      `compose: ${first.objects.filter((o) => o.kind === 'Deployment').length} services of the image, engines ${Object.keys(first.engines).join(', ')}`,
    );

    const hosts = createHostMap();
    const postgresEnv = first.engines.postgres?.environment ?? {};
    const postgres = await startPostgres({
      dir: join(scratch, 'postgres'),
      database: String(postgresEnv.POSTGRES_DB),
      owner: String(postgresEnv.POSTGRES_USER),
      password: String(postgresEnv.POSTGRES_PASSWORD),
    });
    engines.push(postgres);
    hosts.add('postgres', undefined, new Map([[5432, postgres.port]]));
    const natsVolume = (first.engines.nats?.volumes ?? []).find((v) => !v.startsWith('.'))?.split(':')[1] ?? '/data';
    const nats = await startNatsWithConfiguration({
      dir: join(scratch, 'nats'),
      configuration: readFileSync(join(project, 'nats.conf'), 'utf8'),
      storeDir: natsVolume,
    });
    engines.push(nats);
    hosts.add('nats', undefined, new Map([[4222, nats.port]]));
    const redis = await startRedis({ dir: join(scratch, 'redis') });
    engines.push(redis);
    hosts.add('redis', undefined, new Map([[6379, redis.port]]));
    log(
      `  engines: postgres:5432 -> 127.0.0.1:${postgres.port}, nats:4222 -> 127.0.0.1:${nats.port}, redis:6379 -> 127.0.0.1:${redis.port}`,
    );

    const base = {
      externalSecrets: [],
      image: readImage(join(root, 'deploy/Dockerfile')),
      root,
      hosts,
      maxReplicas: 1,
      log,
    };
    const backend = first.objects.filter((o) => o.metadata?.name !== 'satellite');
    const cluster = await runCluster({ ...base, objects: backend, work: join(scratch, 'backend') });
    clusters.push(cluster);
    await Promise.race([cluster.failed, cluster.waitReady('Deployment', 'gateway-api', 180000)]);
    log('  every service up; gateway-api healthy');
    for (const t of cluster.translations)
      log(`    ${`${t.where} ${t.variable}`.padEnd(44)} ${t.from.padEnd(40)} -> ${t.to}`);

    const dotenv = readEnvFile(join(project, '.env'));
    const api = createApi(cluster.serviceUrl('gateway-api', 3000));
    const admin = await adminSession(
      api,
      { email: dotenv.ADMIN_EMAIL as string, password: dotenv.ADMIN_PASSWORD as string },
      cluster.failed,
    );
    log('  the database was set up by the services, and the first admin signed in');
    // The runbook's step: the token into .env, then `docker compose up -d satellite`.
    const token = await globalRegistrationToken(api, admin, 'compose satellite');
    appendFileSync(join(project, '.env'), `SATELLITE_REGISTRATION_TOKEN=${token}\n`);
    const satellite = composeObjects(composeFile, project, image).objects.filter(
      (o) => o.metadata?.name === 'satellite',
    );
    if (satellite.length === 0) throw new RehearsalFailure('compose.yaml has no satellite service');
    const satelliteCluster = await runCluster({ ...base, objects: satellite, work: join(scratch, 'satellite') });
    clusters.push(satelliteCluster);
    const failed = Promise.race([cluster.failed, satelliteCluster.failed]);
    await satellitesActive(api, admin, ['compose-satellite'], failed, 120000);
    log('  the satellite registered with the token from .env and is active');
    const { accessToken } = await installEverything(api, admin, failed);
    log('  server-everything installed from the catalogue and online');
    const url = satelliteCluster.serviceUrl('satellite', 3001);
    const echoed = await eventually(
      'a tool call through the satellite',
      async () =>
        (await modernToolCall(url, accessToken, 'compose day one')).includes('compose day one') ? true : undefined,
      90000,
      failed,
    );
    if (echoed) log('  a tool call through the satellite answered');
  } catch (error) {
    for (const pod of clusters
      .flatMap((c) => c.pods)
      .filter((p) => p.restarts > 0 || !p.ready || p.owner.metadata?.name === 'satellite')) {
      log(`  ${pod.name} (${pod.restarts} restarts), last lines:`);
      for (const line of pod.output.slice(-10)) log(`    | ${line.slice(0, 300)}`);
    }
    throw error;
  } finally {
    for (const cluster of clusters.reverse()) await cluster.stop();
    for (const engine of engines.reverse()) await engine.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}
