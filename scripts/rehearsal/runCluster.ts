import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { dirname, join } from 'node:path';
import { freePort } from '@orbital/testing';
import type { HostMap, Translation } from './createHostMap.ts';
import { type K8sObject, objectName } from './k8sObject.ts';
import type { Image } from './readImage.ts';
import { podSpecOf } from './renderKustomization.ts';

/**
 * A kubelet, kube-proxy and API server in miniature, for the rehearsal: every workload of the rendered
 * objects runs as local processes with exactly the environment, Secrets, ConfigMaps, volumes (folders of
 * their own), command and arguments the objects give, under the user their securityContext names.
 * Readiness probes are polled as the kubelet polls them; a Service is a local proxy over the ready pods
 * it selects. The only translation is of cluster addresses (host names and ports) to this machine's, and
 * of the paths a container sees to the folders that stand for them, each recorded for the table.
 */

type Probe = {
  httpGet?: { path?: string; port: number | string; scheme?: string };
  exec?: { command: string[] };
  periodSeconds?: number;
  failureThreshold?: number;
  successThreshold?: number;
  initialDelaySeconds?: number;
};
type EnvVar = {
  name: string;
  value?: string;
  valueFrom?: {
    fieldRef?: { fieldPath: string };
    secretKeyRef?: { name: string; key: string; optional?: boolean };
    configMapKeyRef?: { name: string; key: string; optional?: boolean };
  };
};
type Container = {
  name: string;
  command?: string[];
  args?: string[];
  env?: EnvVar[];
  envFrom?: Array<{
    prefix?: string;
    configMapRef?: { name: string; optional?: boolean };
    secretRef?: { name: string; optional?: boolean };
  }>;
  ports?: Array<{ name?: string; containerPort: number }>;
  readinessProbe?: Probe;
  startupProbe?: Probe;
  volumeMounts?: Array<{ name: string; mountPath: string; readOnly?: boolean }>;
  securityContext?: { readOnlyRootFilesystem?: boolean; runAsUser?: number; runAsGroup?: number };
};
type Volume = {
  name: string;
  emptyDir?: unknown;
  secret?: { secretName: string; optional?: boolean };
  configMap?: { name: string; optional?: boolean };
  persistentVolumeClaim?: { claimName: string };
};

export type Pod = {
  name: string;
  owner: K8sObject;
  labels: Record<string, string>;
  container: Container;
  /** Container port -> local port. */
  ports: Map<number, number>;
  volumes: Map<string, string>;
  ready: boolean;
  child: ChildProcess | null;
  restarts: number;
  output: string[];
  stopped: boolean;
  requests: number;
};

export type ClusterOptions = {
  objects: K8sObject[];
  /** Secrets made by operators and charts, not by the manifests (PostgreSQL's password). */
  externalSecrets: K8sObject[];
  image: Image;
  /** The folder the image's working directory holds (this repository). */
  root: string;
  work: string;
  hosts: HostMap;
  /** Replicas of one workload run at most this many (two proves replicas share work). */
  maxReplicas: number;
  log(line: string): void;
};

export type Cluster = {
  pods: Pod[];
  translations: Translation[];
  serviceUrl(name: string, port?: number): string;
  /** kubectl apply of a Secret or ConfigMap: stored, and mounted copies refreshed. */
  apply(object: K8sObject): void;
  waitReady(ownerKind: string, ownerName: string, timeoutMs: number): Promise<Pod[]>;
  restart(pod: Pod): Promise<void>;
  /** Rejects at the first problem that can only be the manifests' fault. */
  failed: Promise<never>;
  stop(): Promise<void>;
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const workloadKinds = ['Job', 'Deployment', 'StatefulSet'];

export class RehearsalFailure extends Error {}

export async function runCluster(options: ClusterOptions): Promise<Cluster> {
  const { objects, image, root, work, hosts, log } = options;
  const store = new Map<string, K8sObject>();
  const key = (kind: string, name: string) => `${kind}/${name}`;
  for (const object of [...options.externalSecrets, ...objects]) {
    if (object.kind === 'Secret' || object.kind === 'ConfigMap')
      store.set(key(object.kind, object.metadata?.name ?? ''), object);
  }
  const unsupported = objects.filter((o) => ['DaemonSet', 'CronJob', 'ReplicaSet', 'Pod'].includes(o.kind ?? ''));
  if (unsupported.length > 0) throw new RehearsalFailure(`not rehearsed: ${unsupported.map(objectName).join(', ')}`);
  const translations: Translation[] = [];
  const pods: Pod[] = [];
  let fail: (error: Error) => void = () => {};
  const failed = new Promise<never>((_, reject) => {
    fail = reject;
  });
  failed.catch(() => {});
  const asRoot = process.getuid?.() === 0;
  const nodeDir = dirname(process.execPath);
  for (const dir of [work, join(work, 'pods'), join(work, 'claims')]) mkdirSync(dir, { recursive: true, mode: 0o755 });

  /** Data of a Secret or ConfigMap as text. */
  const dataOf = (kind: 'Secret' | 'ConfigMap', name: string): Record<string, string> | undefined => {
    const object = store.get(key(kind, name));
    if (!object) return undefined;
    const data = (object.data ?? {}) as Record<string, string>;
    return kind === 'Secret'
      ? Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]))
      : { ...data };
  };

  // --- Services: a proxy per port over the ready pods the selector picks.
  const servers: Server[] = [];
  const serviceUrls = new Map<string, number>();
  for (const service of objects.filter((o) => o.kind === 'Service')) {
    const spec = service.spec as {
      selector?: Record<string, string>;
      sessionAffinity?: string;
      ports: Array<{ port: number; targetPort?: number | string; name?: string }>;
    };
    const name = service.metadata?.name ?? '';
    const ports = new Map<number, number>();
    for (const servicePort of spec.ports) {
      const local = await freePort();
      ports.set(servicePort.port, local);
      serviceUrls.set(`${name}:${servicePort.port}`, local);
      let turn = 0;
      const affinity = new Map<string, Pod>();
      const server = createServer((req: IncomingMessage, res: ServerResponse) => {
        const endpoints = pods.filter(
          (pod) => pod.ready && Object.entries(spec.selector ?? {}).every(([k, v]) => pod.labels[k] === v),
        );
        const client = req.socket.remoteAddress ?? '';
        let pod = spec.sessionAffinity === 'ClientIP' ? affinity.get(client) : undefined;
        if (!pod || !endpoints.includes(pod)) pod = endpoints[turn++ % Math.max(endpoints.length, 1)];
        if (!pod) {
          res.writeHead(503).end(`no ready endpoint behind Service ${name}`);
          return;
        }
        affinity.set(client, pod);
        const target = servicePort.targetPort ?? servicePort.port;
        const containerPort =
          typeof target === 'number' ? target : pod.container.ports?.find((p) => p.name === target)?.containerPort;
        const podPort = containerPort === undefined ? undefined : pod.ports.get(containerPort);
        if (podPort === undefined) {
          res.writeHead(503).end(`Service ${name} targets port ${target}, which pod ${pod.name} does not have`);
          return;
        }
        pod.requests += 1;
        const upstream = httpRequest(
          { host: '127.0.0.1', port: podPort, method: req.method, path: req.url, headers: req.headers },
          (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          },
        );
        upstream.on('error', (error) => {
          if (!res.headersSent) res.writeHead(502).end(error.message);
          else res.destroy();
        });
        req.pipe(upstream);
      });
      await new Promise<void>((resolve) => server.listen(local, '127.0.0.1', resolve));
      servers.push(server);
    }
    hosts.add(name, service.metadata?.namespace, ports);
  }

  // --- Pods of every workload.
  const replicasOf = (workload: K8sObject): number => {
    if (workload.kind === 'Job') return 1;
    const declared = (workload.spec as { replicas?: number }).replicas;
    const hpa = objects.find(
      (o) =>
        o.kind === 'HorizontalPodAutoscaler' &&
        (o.spec as { scaleTargetRef: { name: string } }).scaleTargetRef.name === workload.metadata?.name,
    );
    const count = declared ?? (hpa?.spec as { minReplicas?: number } | undefined)?.minReplicas ?? 1;
    return Math.min(count, options.maxReplicas);
  };

  const volumeDirs = (pod: Pod, volumes: Volume[], claimTemplates: string[]) => {
    const uid = pod.container.securityContext?.runAsUser;
    for (const volume of volumes) {
      let dir: string;
      if (volume.emptyDir !== undefined) dir = join(work, 'pods', pod.name, volume.name);
      else if (volume.secret || volume.configMap) dir = join(work, 'pods', pod.name, `${volume.name}-projected`);
      else if (volume.persistentVolumeClaim) dir = join(work, 'claims', volume.persistentVolumeClaim.claimName);
      else throw new RehearsalFailure(`${objectName(pod.owner)}: volume ${volume.name} is of a kind not rehearsed`);
      pod.volumes.set(volume.name, dir);
    }
    for (const claim of claimTemplates) pod.volumes.set(claim, join(work, 'claims', `${claim}-${pod.name}`));
    for (const dir of pod.volumes.values()) {
      // The folders above a volume only lead to it (the pod's user passes through them); the volume is its own.
      mkdirSync(dirname(dir), { recursive: true, mode: 0o755 });
      mkdirSync(dir, { recursive: true, mode: 0o770 });
      if (asRoot && uid !== undefined) chownSync(dir, uid, uid);
    }
    projectVolumes(pod, volumes);
  };

  const projectVolumes = (pod: Pod, volumes: Volume[]) => {
    const uid = pod.container.securityContext?.runAsUser;
    for (const volume of volumes) {
      const source = volume.secret
        ? dataOf('Secret', volume.secret.secretName)
        : volume.configMap
          ? dataOf('ConfigMap', volume.configMap.name)
          : null;
      if (source === null) continue;
      const dir = pod.volumes.get(volume.name) as string;
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true, mode: 0o750 });
      if (source === undefined) {
        const optional = volume.secret?.optional ?? volume.configMap?.optional;
        if (!optional) {
          throw new RehearsalFailure(
            `${objectName(pod.owner)}: volume ${volume.name} needs ${volume.secret ? `Secret ${volume.secret.secretName}` : `ConfigMap ${volume.configMap?.name}`}, which nothing creates`,
          );
        }
        continue;
      }
      for (const [file, text] of Object.entries(source)) {
        writeFileSync(join(dir, file), text, { mode: 0o440 });
        if (asRoot && uid !== undefined) chownSync(join(dir, file), uid, uid);
      }
      if (asRoot && uid !== undefined) chownSync(dir, uid, uid);
    }
  };

  /** The container's path as this machine's: a mounted volume's folder, or the image's own files. */
  const localPath = (pod: Pod, path: string): string | undefined => {
    const mounts = [...(pod.container.volumeMounts ?? [])].sort((a, b) => b.mountPath.length - a.mountPath.length);
    for (const mount of mounts) {
      if (path === mount.mountPath || path.startsWith(`${mount.mountPath}/`)) {
        return `${pod.volumes.get(mount.name)}${path.slice(mount.mountPath.length)}`;
      }
    }
    if (path === image.workdir || path.startsWith(`${image.workdir}/`))
      return `${root}${path.slice(image.workdir.length)}`;
    return undefined;
  };

  const expand = (text: string, env: Record<string, string>) =>
    text.replace(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (whole, name: string) => env[name] ?? whole);

  /** The environment as the kubelet builds it; throws naming what is missing. */
  const environmentOf = (pod: Pod): Record<string, string> => {
    const where = `${objectName(pod.owner)} (container ${pod.container.name})`;
    const env: Record<string, string> = {};
    for (const source of pod.container.envFrom ?? []) {
      const ref = source.configMapRef ?? source.secretRef;
      const kind = source.configMapRef ? 'ConfigMap' : 'Secret';
      const data = ref ? dataOf(kind, ref.name) : undefined;
      if (!data) {
        if (ref?.optional) continue;
        throw new RehearsalFailure(`${where}: envFrom names ${kind} ${ref?.name}, which nothing creates`);
      }
      for (const [name, value] of Object.entries(data)) env[`${source.prefix ?? ''}${name}`] = value;
    }
    for (const variable of pod.container.env ?? []) {
      const from = variable.valueFrom;
      if (!from) {
        env[variable.name] = expand(variable.value ?? '', env);
        continue;
      }
      if (from.fieldRef) {
        const field: Record<string, string> = {
          'metadata.name': pod.name,
          'metadata.namespace': pod.owner.metadata?.namespace ?? 'default',
          'status.podIP': '127.0.0.1',
          'spec.nodeName': 'rehearsal',
        };
        const value = field[from.fieldRef.fieldPath];
        if (value === undefined)
          throw new RehearsalFailure(`${where}: ${variable.name} reads ${from.fieldRef.fieldPath}, not rehearsed`);
        env[variable.name] = value;
        continue;
      }
      const ref = from.secretKeyRef ?? from.configMapKeyRef;
      const kind = from.secretKeyRef ? 'Secret' : 'ConfigMap';
      const value = ref ? dataOf(kind, ref.name)?.[ref.key] : undefined;
      if (value === undefined) {
        if (ref?.optional) continue;
        throw new RehearsalFailure(
          `${where}: ${variable.name} needs key ${ref?.key} of ${kind} ${ref?.name}, which nothing provides`,
        );
      }
      env[variable.name] = value;
    }
    return env;
  };

  /** The checks that need no process: every listening port and path a variable names must be real. */
  const checkStatically = (pod: Pod, env: Record<string, string>) => {
    const where = `${objectName(pod.owner)} (container ${pod.container.name})`;
    const readOnly = pod.container.securityContext?.readOnlyRootFilesystem === true;
    for (const [name, value] of Object.entries(env)) {
      if (!value.startsWith('/') || value.includes(' ')) continue;
      if (localPath(pod, value) === undefined) {
        throw new RehearsalFailure(
          `${where}: ${name} (${value}) is on no volume${readOnly ? ", and the container's root filesystem is read-only" : ' and not in the image'}: mount a volume there`,
        );
      }
    }
    for (const port of pod.container.ports ?? []) {
      const carried = Object.entries(env).some(
        ([name, value]) => /PORT$/.test(name) && value === String(port.containerPort),
      );
      if (!carried) {
        throw new RehearsalFailure(
          `${where}: container port ${port.name ?? ''} (${port.containerPort}) is given to the process by no variable, so the process would listen on a default of its own`,
        );
      }
    }
  };

  /** Makes an environment local, recording each change. */
  const localEnvironment = (pod: Pod, env: Record<string, string>): Record<string, string> => {
    const where = objectName(pod.owner);
    const result = { ...env };
    const record = (variable: string, from: string, to: string) => {
      if (!translations.some((t) => t.where === where && t.variable === variable))
        translations.push({ where, variable, from, to });
    };
    for (const [name, value] of Object.entries(env)) {
      // The process listens where the container port would be.
      const containerPort = pod.container.ports?.find((p) => /PORT$/.test(name) && String(p.containerPort) === value);
      if (containerPort) {
        result[name] = String(pod.ports.get(containerPort.containerPort));
        record(name, value, `${result[name]} (this pod)`);
        continue;
      }
      let translated: string | undefined;
      try {
        translated = hosts.translate(value);
      } catch (error) {
        throw new RehearsalFailure(`${where}: ${name}: ${(error as Error).message}`);
      }
      if (translated !== undefined) {
        result[name] = translated;
        record(name, value.replace(/\/\/[^/@\s]*@/, '//***@'), translated.replace(/\/\/[^/@\s]*@/, '//***@'));
        // A host name alone: its port variable beside it follows.
        const portVariable = name.replace(/HOST$/, 'PORT');
        if (hosts.isHost(value) && portVariable !== name && !env[portVariable]) {
          throw new RehearsalFailure(
            `${where}: ${name} names ${value} but ${portVariable} is not set: the process would use a port of its own choosing, which the rehearsal cannot map; set ${portVariable}`,
          );
        }
        if (hosts.isHost(value) && portVariable !== name && env[portVariable]) {
          const local = hosts.portOf(value, Number(env[portVariable]));
          if (local === undefined)
            throw new RehearsalFailure(`${where}: ${value}:${env[portVariable]} answers on no port`);
          result[portVariable] = String(local);
          record(portVariable, env[portVariable] as string, String(local));
        }
        continue;
      }
      if (value.startsWith('/')) {
        const local = localPath(pod, value) as string;
        if (local !== value) {
          result[name] = local;
          record(name, value, local.replace(work, '<rehearsal>'));
        }
      }
    }
    return result;
  };

  const commandOf = (pod: Pod, env: Record<string, string>): string[] => {
    const container = pod.container;
    let argv = container.command
      ? [...container.command, ...(container.args ?? [])]
      : [...image.entrypoint, ...(container.args ?? image.cmd)];
    argv = argv.map((part) => expand(part, env));
    // tini reaps zombies in the image; here the rehearsal's own process does.
    if (argv[0]?.endsWith('/tini') && !existsSync(argv[0])) argv = argv.slice(argv[1] === '--' ? 2 : 1);
    return argv.map((part) => (part.startsWith('/') ? (localPath(pod, part) ?? part) : part));
  };

  const probe = async (pod: Pod, spec: Probe): Promise<boolean> => {
    if (spec.httpGet) {
      const port =
        typeof spec.httpGet.port === 'number'
          ? spec.httpGet.port
          : pod.container.ports?.find((p) => p.name === spec.httpGet?.port)?.containerPort;
      const local = port === undefined ? undefined : pod.ports.get(port);
      if (local === undefined)
        throw new RehearsalFailure(
          `${objectName(pod.owner)}: probe names port ${spec.httpGet.port}, which the container does not have`,
        );
      try {
        const answer = await fetch(`http://127.0.0.1:${local}${spec.httpGet.path ?? '/'}`, {
          signal: AbortSignal.timeout(1000),
        });
        await answer.arrayBuffer();
        return answer.status >= 200 && answer.status < 400;
      } catch {
        return false;
      }
    }
    if (spec.exec) {
      // Run in the container's place: its own ports are reached on localhost, which here is each local port.
      const argv = spec.exec.command.map((part) =>
        part.replace(/localhost:(\d+)/g, (whole, port: string) => {
          const local = pod.ports.get(Number(port));
          return local === undefined ? whole : `127.0.0.1:${local}`;
        }),
      );
      const command = argv[0] === 'node' ? process.execPath : (argv[0] as string);
      return new Promise<boolean>((resolve) => {
        const check = spawn(command, argv.slice(1), { stdio: 'ignore', timeout: 5000 });
        check.once('exit', (code) => resolve(code === 0));
        check.once('error', () => resolve(false));
      });
    }
    return true;
  };

  const start = (pod: Pod) => {
    if (pod.stopped) return;
    let env: Record<string, string>;
    try {
      env = environmentOf(pod);
      checkStatically(pod, env);
    } catch (error) {
      fail(error as Error);
      return;
    }
    const local = localEnvironment(pod, env);
    const argv = commandOf(pod, local);
    const home = join(work, 'pods', pod.name, 'image-home');
    mkdirSync(home, { recursive: true, mode: 0o555 });
    // The container's /tmp is its volume there (or, on a read-only root without one, nowhere to write):
    // Node and the tools it starts find it through TMPDIR.
    const tmp = localPath(pod, '/tmp');
    const readOnly = pod.container.securityContext?.readOnlyRootFilesystem === true;
    // Without a volume there, a writable root filesystem still gives the container a /tmp of its own.
    let tmpdir = tmp ?? home;
    if (tmp === undefined && !readOnly) {
      tmpdir = join(work, 'pods', pod.name, 'container-tmp');
      mkdirSync(tmpdir, { recursive: true, mode: 0o1777 });
      chmodSync(tmpdir, 0o1777);
    }
    if (!translations.some((t) => t.where === objectName(pod.owner) && t.variable === '(TMPDIR)')) {
      translations.push({
        where: objectName(pod.owner),
        variable: '(TMPDIR)',
        from: '/tmp',
        to: tmpdir.replace(work, '<rehearsal>'),
      });
    }
    const processEnv = {
      ...image.env,
      PATH: `${nodeDir}:/usr/local/bin:/usr/bin:/bin`,
      HOSTNAME: pod.name,
      HOME: home,
      TMPDIR: tmpdir,
      ...local,
    };
    const security = pod.container.securityContext ?? {};
    const child = spawn(argv[0] as string, argv.slice(1), {
      cwd: localPath(pod, image.workdir) ?? root,
      env: processEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
      ...(asRoot && security.runAsUser !== undefined
        ? { uid: security.runAsUser, gid: security.runAsGroup ?? security.runAsUser }
        : {}),
    });
    pod.child = child;
    for (const stream of [child.stdout, child.stderr]) {
      stream?.on('data', (chunk: Buffer) => {
        for (const line of chunk.toString().split('\n')) if (line) pod.output.push(line);
        if (pod.output.length > 400) pod.output.splice(0, pod.output.length - 400);
      });
    }
    child.once('exit', (code, signal) => {
      pod.ready = false;
      pod.child = null;
      if (pod.stopped) return;
      const text = pod.output.join('\n');
      const configuration = /Invalid configuration:\n((?:\s+- .*\n?)+)/.exec(text);
      if (configuration) {
        fail(
          new RehearsalFailure(
            `${objectName(pod.owner)} (container ${pod.container.name}) refused to start:\n${configuration[1]?.trimEnd()}`,
          ),
        );
        return;
      }
      if (pod.owner.kind === 'Job' && code === 0) return;
      pod.restarts += 1;
      const wait = Math.min(10000, 1000 * 2 ** Math.min(pod.restarts, 4));
      log(`  ${pod.name} exited (${signal ?? code}); restarting in ${wait / 1000} s (restart ${pod.restarts})`);
      setTimeout(() => start(pod), wait).unref();
    });
    void watchProbes(pod, child);
  };

  const watchProbes = async (pod: Pod, child: ChildProcess) => {
    const readiness = pod.container.readinessProbe;
    const startup = pod.container.startupProbe;
    if (startup) {
      await sleep((startup.initialDelaySeconds ?? 0) * 1000);
      for (let failures = 0; pod.child === child; ) {
        if (await probe(pod, startup)) break;
        failures += 1;
        // As the kubelet does: a container that never passes its startup probe is killed and restarted.
        if (failures >= (startup.failureThreshold ?? 3)) {
          log(`  ${pod.name} failed its startup probe ${failures} times; killing it`);
          child.kill('SIGKILL');
          return;
        }
        await sleep((startup.periodSeconds ?? 10) * 1000);
      }
    }
    if (!readiness) {
      pod.ready = pod.child === child;
      return;
    }
    await sleep((readiness.initialDelaySeconds ?? 0) * 1000);
    let failures = 0;
    let successes = 0;
    while (pod.child === child) {
      if (await probe(pod, readiness)) {
        successes += 1;
        failures = 0;
        if (successes >= (readiness.successThreshold ?? 1)) pod.ready = pod.child === child;
      } else {
        failures += 1;
        successes = 0;
        if (failures >= (readiness.failureThreshold ?? 3)) pod.ready = false;
      }
      await sleep((readiness.periodSeconds ?? 10) * 1000);
    }
  };

  const workloads = objects.filter((o) => workloadKinds.includes(o.kind ?? ''));
  const makePods = async (workload: K8sObject) => {
    const template = (workload.spec as { template: { metadata?: { labels?: Record<string, string> } } }).template;
    const podSpec = podSpecOf(workload) as {
      containers: Container[];
      volumes?: Volume[];
      securityContext?: Container['securityContext'];
    };
    if (podSpec.containers.length !== 1)
      throw new RehearsalFailure(`${objectName(workload)}: only pods of one container are rehearsed`);
    const claimTemplates = (
      (workload.spec as { volumeClaimTemplates?: Array<{ metadata: { name: string } }> }).volumeClaimTemplates ?? []
    ).map((c) => c.metadata.name);
    const made: Pod[] = [];
    for (let index = 0; index < replicasOf(workload); index += 1) {
      const base = podSpec.containers[0] as Container;
      const container: Container = {
        ...base,
        securityContext: { ...podSpec.securityContext, ...base.securityContext },
      };
      const suffix = workload.kind === 'StatefulSet' ? String(index) : randomBytes(3).toString('hex');
      const pod: Pod = {
        name: `${workload.metadata?.name}-${suffix}`,
        owner: workload,
        labels: template.metadata?.labels ?? {},
        container,
        ports: new Map(),
        volumes: new Map(),
        ready: false,
        child: null,
        restarts: 0,
        output: [],
        stopped: false,
        requests: 0,
      };
      for (const port of container.ports ?? []) pod.ports.set(port.containerPort, await freePort());
      volumeDirs(pod, podSpec.volumes ?? [], claimTemplates);
      pods.push(pod);
      made.push(pod);
    }
    return made;
  };

  // Jobs first, to completion; then everything else at once, as `kubectl apply -k` creates it.
  for (const job of workloads.filter((w) => w.kind === 'Job')) {
    const [pod] = await makePods(job);
    if (!pod) continue;
    start(pod);
    const backoffLimit = (job.spec as { backoffLimit?: number }).backoffLimit ?? 6;
    await Promise.race([
      failed,
      (async () => {
        while (pod.child || pod.restarts === 0) {
          await sleep(200);
          if (pod.restarts > backoffLimit)
            throw new RehearsalFailure(
              `${objectName(job)} failed ${pod.restarts} times:\n${pod.output.slice(-20).join('\n')}`,
            );
          if (!pod.child && pod.restarts === 0 && pod.output.length > 0) break;
        }
      })(),
    ]);
    log(`  ${objectName(job)} completed`);
  }
  for (const workload of workloads.filter((w) => w.kind !== 'Job')) {
    for (const pod of await makePods(workload)) start(pod);
  }

  const stopPod = async (pod: Pod) => {
    pod.stopped = true;
    pod.ready = false;
    const child = pod.child;
    if (!child?.pid) return;
    // The pod's grace period, but no longer than the rehearsal waits: a drain takes a few seconds here.
    const grace = Math.min(8, (podSpecOf(pod.owner)?.terminationGracePeriodSeconds as number | undefined) ?? 30) * 1000;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        try {
          process.kill(-(child.pid as number), 'SIGKILL');
        } catch {}
        resolve();
      }, grace);
      child.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      child.kill('SIGTERM');
    });
  };

  return {
    pods,
    translations,
    failed,
    serviceUrl(name, port = 80) {
      const local = serviceUrls.get(`${name}:${port}`);
      if (local === undefined) throw new Error(`no Service ${name} on port ${port}`);
      return `http://127.0.0.1:${local}`;
    },
    apply(object) {
      store.set(key(object.kind ?? '', object.metadata?.name ?? ''), object);
      for (const pod of pods) projectVolumes(pod, (podSpecOf(pod.owner)?.volumes as Volume[]) ?? []);
    },
    async waitReady(kind, name, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const owned = pods.filter((pod) => pod.owner.kind === kind && pod.owner.metadata?.name === name);
        if (owned.length > 0 && owned.every((pod) => pod.ready)) return owned;
        if (Date.now() > deadline) {
          const notReady = owned.filter((pod) => !pod.ready);
          throw new RehearsalFailure(
            `${kind} ${name} did not become ready in ${timeoutMs / 1000} s (${notReady.map((p) => `${p.name}: ${p.restarts} restarts`).join(', ')}); its last lines:\n${notReady
              .flatMap((p) => p.output.slice(-15).map((line) => `  ${p.name} | ${line.slice(0, 400)}`))
              .join('\n')}`,
          );
        }
        await Promise.race([failed, sleep(250)]);
      }
    },
    async restart(pod) {
      await stopPod(pod);
      pod.stopped = false;
      start(pod);
    },
    async stop() {
      await Promise.all(pods.map(stopPod));
      await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
      for (const server of servers) server.closeAllConnections();
    },
  };
}
