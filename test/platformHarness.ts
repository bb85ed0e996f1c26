import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type ChildService,
  createTestEnvironment,
  freePort,
  type PlatformNats,
  startPlatformNats,
  startServiceProcess,
  type TestEnvironment,
} from '@orbital/testing';
import { platformProcesses } from '../scripts/platformProcesses.ts';

/** The e2e tests wait as the deployment rehearsal does. */
export { eventually } from '../scripts/rehearsal/eventually.ts';
/** The e2e tests call the platform's HTTP API as the deployment rehearsal does. */
export { requestJson as call } from '../scripts/rehearsal/requestJson.ts';

/**
 * The whole platform as real processes, as `npm start` runs it (the same list of processes), on this
 * run's own database, subject prefix and queue prefix: every backend service `replicas` times, one
 * gateway-api per replica, and the satellite when asked for with a registration token.
 */
export type Platform = {
  env: TestEnvironment;
  /** Base URL of the first gateway-api. */
  api: string;
  gateways: string[];
  admin: { email: string; password: string };
  processes: Array<{ name: string; child: ChildService }>;
  /** Starts a satellite in backend mode; `env` adds or overrides its variables (SATELLITE_AUTH_MODE...). */
  startSatellite(
    registrationToken: string,
    env?: Record<string, string>,
  ): Promise<{ url: string; child: ChildService }>;
  logs(name: string): string;
  /** The log of the platform's own NATS server when it runs one (`authenticatedNats`), else empty. */
  natsLog(): string;
  stop(): Promise<void>;
};

export async function startPlatform(
  options: {
    replicas?: number;
    env?: Record<string, string>;
    /** Extra variables of one process (by its name in platformProcesses), such as its METRICS_PORT. */
    envFor?: (name: string) => Record<string, string>;
    /**
     * Runs the platform on a NATS server of its own as `npm start` and the manifests do: each process
     * with its own NKey and the permissions generated from the contract catalogue, no anonymous access.
     */
    authenticatedNats?: boolean;
  } = {},
): Promise<Platform> {
  const env = await createTestEnvironment();
  let nats: PlatformNats | null = null;
  if (options.authenticatedNats) nats = await startPlatformNats({ prefix: env.subjectPrefix });
  const admin = { email: 'owner@orbital.test', password: 'correct horse battery staple 77' };
  const common = {
    ...env.env,
    ADMIN_EMAIL: admin.email,
    ADMIN_PASSWORD: admin.password,
    REGISTRATION_TOKEN_SECRET: env.env.REGISTRATION_TOKEN_SECRET ?? 'e2e-registration-token-secret-0123456789abcdef',
    HOST: '127.0.0.1',
    ...options.env,
  };
  const processes: Platform['processes'] = [];
  const gateways: string[] = [];
  const replicas = options.replicas ?? 1;
  try {
    for (const proc of platformProcesses.filter((p) => p.name !== 'satellite')) {
      for (let replica = 0; replica < replicas; replica += 1) {
        const extra: Record<string, string> = {};
        if (proc.name === 'gateway-api') {
          const port = await freePort();
          extra.PORT = String(port);
          gateways.push(`http://127.0.0.1:${port}`);
          // The address people and authorization servers reach the platform by (callbacks, links in
          // answers): the first gateway's, unless the test names another.
          const named = options.env?.OAUTH_ISSUER_URL ?? options.envFor?.(proc.name).OAUTH_ISSUER_URL;
          if (!named) {
            extra.OAUTH_ISSUER_URL = gateways[0] as string;
          }
        }
        const natsEnv = nats && proc.process ? nats.envFor(proc.process) : {};
        const child = await startServiceProcess(
          proc.entry,
          { ...common, ...natsEnv, ...proc.env, ...options.envFor?.(proc.name), ...extra },
          { readyTimeoutMs: 30000 },
        );
        processes.push({ name: replicas > 1 ? `${proc.name}#${replica}` : proc.name, child });
      }
    }
  } catch (error) {
    for (const { child } of processes) await child.kill();
    await nats?.server.stop();
    await env.cleanup();
    throw error;
  }
  const satelliteProcess = platformProcesses.find((p) => p.name === 'satellite');
  const satelliteEntry = satelliteProcess?.entry ?? 'satellite/src/main.ts';
  return {
    env,
    api: gateways[0] as string,
    gateways,
    admin,
    processes,
    async startSatellite(registrationToken, satelliteEnv = {}) {
      const port = await freePort();
      const url = `http://127.0.0.1:${port}`;
      const child = await startServiceProcess(
        satelliteEntry,
        {
          ...common,
          ...satelliteProcess?.env,
          PORT: String(port),
          BACKEND_URL: gateways[0] as string,
          SATELLITE_REGISTRATION_TOKEN: registrationToken,
          SATELLITE_STATE_DIR: mkdtempSync(join(tmpdir(), 'orbital-e2e-satellite-')),
          SATELLITE_PUBLIC_URL: url,
          // Short intervals keep the walk quick; the behaviour is the same as with the defaults.
          EVENT_BATCH_INTERVAL_MS: '500',
          ...satelliteEnv,
        },
        { readyTimeoutMs: 30000 },
      );
      processes.push({ name: 'satellite', child });
      return { url, child };
    },
    logs: (name) =>
      processes
        .filter((p) => p.name === name || p.name.startsWith(`${name}#`))
        .map((p) => p.child.output())
        .join('\n'),
    natsLog: () => nats?.server.output() ?? '',
    async stop() {
      await Promise.all(processes.reverse().map(({ child }) => child.stop()));
      await nats?.server.stop();
      await env.cleanup();
    },
  };
}
