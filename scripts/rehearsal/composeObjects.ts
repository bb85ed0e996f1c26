import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { K8sObject } from './k8sObject.ts';

/**
 * A compose file as `docker compose up` reads it, turned into the objects the rehearsal runs: each
 * service built from the Orbital image becomes a workload of one replica (environment from env_file and
 * environment, with ${VAR} taken from the project's .env; the command as arguments to the image's
 * entrypoint; named volumes that outlive restarts; published ports; the healthcheck as a readiness
 * probe) and a Service of its name, which is its host name on the compose network. The engines' services
 * (other images) are returned apart, for the rehearsal to stand in for.
 */
export type ComposeService = {
  image?: string;
  build?: unknown;
  command?: string[];
  environment?: Record<string, string | number | boolean | null>;
  env_file?: string | string[];
  ports?: string[];
  volumes?: string[];
  healthcheck?: { test?: string[] };
  user?: string;
};

/** ${VAR}, ${VAR:-default} and ${VAR:?message} as compose interpolates them; a missing required one stops. */
export function interpolate(text: string, env: Record<string, string>, where: string): string {
  return text.replace(
    /\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}/g,
    (_, name: string, op?: string, arg?: string) => {
      const value = env[name];
      const empty = value === undefined || (op?.startsWith(':') && value === '');
      if (op?.endsWith('?') && empty) throw new Error(`${where}: ${name} is required: ${arg}`);
      if (op?.endsWith('-') && empty) return arg ?? '';
      return value ?? '';
    },
  );
}

export function readEnvFile(path: string): Record<string, string> {
  return Object.fromEntries(
    readFileSync(path, 'utf8')
      .split('\n')
      .filter((line) => line.includes('=') && !line.trimStart().startsWith('#'))
      .map((line) => [line.slice(0, line.indexOf('=')).trim(), line.slice(line.indexOf('=') + 1)]),
  );
}

export function composeObjects(
  composeFile: string,
  projectDir: string,
  orbitalImage: string,
): { objects: K8sObject[]; engines: Record<string, ComposeService> } {
  const dotenv = readEnvFile(join(projectDir, '.env'));
  const text = interpolate(readFileSync(composeFile, 'utf8'), dotenv, composeFile);
  const file = parse(text, { merge: true }) as { services: Record<string, ComposeService> };
  const objects: K8sObject[] = [];
  const engines: Record<string, ComposeService> = {};
  for (const [name, service] of Object.entries(file.services)) {
    if (service.image !== orbitalImage) {
      engines[name] = service;
      continue;
    }
    const envFiles = typeof service.env_file === 'string' ? [service.env_file] : (service.env_file ?? []);
    const env: Record<string, string> = {};
    for (const envFile of envFiles) Object.assign(env, readEnvFile(join(projectDir, envFile)));
    for (const [key, value] of Object.entries(service.environment ?? {})) {
      if (value === null) continue;
      env[key] = String(value);
    }
    // Ports the container listens on: those it publishes, and those its environment tells the process to
    // listen on (each container has its own network in compose, so these never collide there).
    const listening = ['PORT', 'METRICS_PORT'].flatMap((key) => (env[key] ? [Number(env[key])] : []));
    const containerPorts = [
      ...new Set([...(service.ports ?? []).map((mapping) => Number(mapping.split(':').at(-1))), ...listening]),
    ];
    const volumes = (service.volumes ?? []).map((mount, index) => {
      const [source = '', target = ''] = mount.split(':');
      if (source.startsWith('.') || source.startsWith('/'))
        throw new Error(`${composeFile}: ${name} mounts a host path ${source}, not rehearsed`);
      return { name: `v${index}`, claimName: `${source}`, mountPath: target };
    });
    const healthcheck = service.healthcheck?.test;
    const labels = { 'app.kubernetes.io/name': name };
    objects.push({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, namespace: 'compose' },
      spec: {
        replicas: 1,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            // The image's user (node); compose keeps the container's own filesystem writable.
            securityContext: { runAsUser: 1000, runAsGroup: 1000 },
            containers: [
              {
                name,
                ...(service.command ? { args: service.command } : {}),
                env: Object.entries(env).map(([key, value]) => ({ name: key, value })),
                ports: containerPorts.map((containerPort) => ({ containerPort })),
                ...(healthcheck?.[0] === 'CMD'
                  ? {
                      readinessProbe: {
                        exec: { command: healthcheck.slice(1) },
                        periodSeconds: 2,
                        failureThreshold: 3,
                      },
                    }
                  : {}),
                volumeMounts: volumes.map((v) => ({ name: v.name, mountPath: v.mountPath })),
              },
            ],
            volumes: volumes.map((v) => ({ name: v.name, persistentVolumeClaim: { claimName: v.claimName } })),
          },
        },
      },
    });
    objects.push({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name, namespace: 'compose' },
      spec: { selector: labels, ports: containerPorts.map((port) => ({ port, targetPort: port })) },
    });
  }
  return { objects, engines };
}
