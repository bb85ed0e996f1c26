/**
 * Offline validation of deploy/: every Kubernetes object is checked against the Kubernetes API schemas
 * (kubernetes-models), each overlay is rendered as `kubectl kustomize` renders it (by our renderer of the
 * kustomize subset we use, scripts/rehearsal/renderKustomization.ts, so no kubectl is needed) and its
 * output checked the same way, and the rules we hold ourselves to are checked on what renders:
 * probes, resources, a grace period longer than the drain, a PodDisruptionBudget per Deployment,
 * autoscalers that point at Deployments, non-root read-only containers. Run: `npm run check:deploy`.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { generateNatsUser, natsServerConfig } from '@orbital/bus';
import { processNames } from '@orbital/contracts';
import { parseAllDocuments } from 'yaml';
import { renderKustomization } from './rehearsal/renderKustomization.ts';

type K8sObject = { apiVersion?: string; kind?: string; metadata?: { name?: string }; [key: string]: unknown };

const root = resolve(import.meta.dirname, '..');
const kubernetesDir = join(root, 'deploy/kubernetes');
const problems: string[] = [];
let checked = 0;

/** Kinds from operators' CRDs: their schemas are not in the core API; only their shape is checked. */
const customKinds = new Set(['postgresql.cnpg.io/v1/Cluster']);

async function validateObject(object: K8sObject, where: string): Promise<void> {
  const { apiVersion, kind } = object;
  if (!apiVersion || !kind) {
    problems.push(`${where}: missing apiVersion or kind`);
    return;
  }
  if (customKinds.has(`${apiVersion}/${kind}`)) {
    if (!object.metadata?.name) problems.push(`${where}: ${kind} without a name`);
    checked += 1;
    return;
  }
  const modulePath = `kubernetes-models/${apiVersion.includes('/') ? apiVersion : apiVersion}/${kind}`;
  let Model: new (data: unknown) => { validate(): void };
  try {
    const loaded = (await import(modulePath)) as Record<string, new (data: unknown) => { validate(): void }>;
    Model = loaded[kind] as typeof Model;
  } catch {
    problems.push(`${where}: unknown kind ${apiVersion} ${kind}`);
    return;
  }
  try {
    new Model(object).validate();
    checked += 1;
  } catch (error) {
    problems.push(`${where}: ${kind} ${object.metadata?.name ?? ''}: ${(error as Error).message}`);
  }
}

function yamlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return yamlFiles(path);
    return entry.endsWith('.yaml') && entry !== 'kustomization.yaml' && !entry.endsWith('.values.yaml') ? [path] : [];
  });
}

function parse(text: string, where: string): K8sObject[] {
  return parseAllDocuments(text).flatMap((doc) => {
    if (doc.errors.length > 0) {
      problems.push(`${where}: ${doc.errors[0]?.message}`);
      return [];
    }
    const value = doc.toJS() as K8sObject | null;
    return value ? [value] : [];
  });
}

/** Our own rules, on a rendered overlay. */
function checkPolicies(objects: K8sObject[], overlay: string): void {
  const deployments = objects.filter((o) => o.kind === 'Deployment' || o.kind === 'StatefulSet');
  const pdbTargets = new Set(
    objects
      .filter((o) => o.kind === 'PodDisruptionBudget')
      .map(
        (o) =>
          (o.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels[
            'app.kubernetes.io/name'
          ],
      ),
  );
  for (const deployment of deployments) {
    const name = deployment.metadata?.name ?? '?';
    const pod = (deployment.spec as { template: { spec: Record<string, unknown> } }).template.spec;
    const where = `${overlay}: ${deployment.kind} ${name}`;
    if (typeof pod.terminationGracePeriodSeconds !== 'number' || pod.terminationGracePeriodSeconds <= 20) {
      problems.push(`${where}: terminationGracePeriodSeconds must exceed the 20 s drain deadline`);
    }
    const securityContext = pod.securityContext as { runAsNonRoot?: boolean } | undefined;
    if (!securityContext?.runAsNonRoot) problems.push(`${where}: must run as non-root`);
    for (const container of pod.containers as Array<Record<string, unknown>>) {
      for (const field of ['readinessProbe', 'livenessProbe', 'resources']) {
        if (!container[field]) problems.push(`${where}: container ${container.name} has no ${field}`);
      }
      const limits = (container.resources as { limits?: Record<string, string> } | undefined)?.limits;
      if (!limits?.memory || !limits.cpu)
        problems.push(`${where}: container ${container.name} needs cpu and memory limits`);
      const sc = container.securityContext as
        | { readOnlyRootFilesystem?: boolean; allowPrivilegeEscalation?: boolean }
        | undefined;
      if (!sc?.readOnlyRootFilesystem || sc.allowPrivilegeEscalation !== false) {
        problems.push(`${where}: container ${container.name} must be read-only without privilege escalation`);
      }
    }
    if (!pdbTargets.has(name)) problems.push(`${where}: no PodDisruptionBudget`);
  }
  for (const hpa of objects.filter((o) => o.kind === 'HorizontalPodAutoscaler')) {
    const target = (hpa.spec as { scaleTargetRef: { kind: string; name: string } }).scaleTargetRef;
    if (!deployments.some((d) => d.metadata?.name === target.name)) {
      problems.push(
        `${overlay}: HorizontalPodAutoscaler ${hpa.metadata?.name} targets a missing ${target.kind} ${target.name}`,
      );
    }
  }
  // Streams are copied to as many NATS servers as the stream replicas say: on a cluster of another size
  // they either cannot be created or lose their copies with one server.
  const config = objects.find((o) => o.kind === 'ConfigMap' && o.metadata?.name === 'orbital-config');
  const streamReplicas = Number((config?.data as Record<string, string> | undefined)?.NATS_STREAM_REPLICAS ?? '1');
  const natsValues = parseAllDocuments(
    readFileSync(join(kubernetesDir, 'infrastructure/nats.values.yaml'), 'utf8'),
  )[0]?.toJS() as {
    config?: { cluster?: { enabled?: boolean; replicas?: number } };
  };
  const natsServers = natsValues.config?.cluster?.enabled ? (natsValues.config.cluster.replicas ?? 1) : 1;
  if (overlay.endsWith('production') && streamReplicas !== natsServers) {
    problems.push(
      `${overlay}: NATS_STREAM_REPLICAS is ${streamReplicas}, but infrastructure/nats.values.yaml runs ${natsServers} NATS servers`,
    );
  }
  const policies = objects.filter((o) => o.kind === 'NetworkPolicy');
  if (!policies.some((p) => p.metadata?.name === 'orbital-default-deny-ingress')) {
    problems.push(`${overlay}: the default-deny ingress NetworkPolicy is missing`);
  }
  checkInfrastructureIngress(policies as NetworkPolicy[], overlay);
}

type Selector = {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{ key: string; operator: string; values?: string[] }>;
};
type Peer = { podSelector?: Selector; namespaceSelector?: Selector; ipBlock?: unknown };
type NetworkPolicy = K8sObject & {
  spec: {
    podSelector: Selector;
    policyTypes?: string[];
    ingress?: Array<{ from?: Peer[]; ports?: Array<{ port?: number | string }> }>;
  };
};

/**
 * The engines behind the platform and the Orbital services that may reach each one's client port; pods
 * by their charts' labels. Nothing else may reach those ports: not the satellite, not another namespace,
 * not an address block.
 */
const infrastructure: Array<{ engine: string; pods: Record<string, string>; port: number; clients: string[] }> = [
  {
    engine: 'NATS',
    pods: { 'app.kubernetes.io/name': 'nats', 'app.kubernetes.io/instance': 'orbital-nats' },
    port: 4222,
    clients: ['gateway-api', 'settings', 'satellite-registry', 'installations', 'jobs'],
  },
  {
    engine: 'PostgreSQL',
    pods: { 'cnpg.io/cluster': 'orbital-postgres' },
    port: 5432,
    clients: ['gateway-api', 'settings', 'satellite-registry', 'installations'],
  },
  {
    engine: 'Redis',
    pods: { 'app.kubernetes.io/name': 'redis', 'app.kubernetes.io/instance': 'orbital-redis' },
    port: 6379,
    clients: ['gateway-api', 'jobs'],
  },
];

/** Whether a selector can select pods carrying `labels` (an empty selector selects every pod). */
function selects(selector: Selector, labels: Record<string, string>): boolean {
  const byLabel = Object.entries(selector.matchLabels ?? {}).every(([key, value]) => labels[key] === value);
  const byExpression = (selector.matchExpressions ?? []).every((e) =>
    e.operator === 'In' ? e.values?.includes(labels[e.key] ?? '') : e.operator === 'Exists' ? e.key in labels : true,
  );
  return byLabel && byExpression;
}

/** The Orbital service names a peer admits, or null when it admits anything beyond named Orbital pods. */
function admittedServices(peer: Peer): string[] | null {
  if (peer.ipBlock || peer.namespaceSelector || !peer.podSelector) return null;
  const selector = peer.podSelector;
  if (selector.matchLabels?.['app.kubernetes.io/part-of'] !== 'orbital') return null;
  const byName = selector.matchLabels?.['app.kubernetes.io/name'];
  const names = selector.matchExpressions?.find((e) => e.key === 'app.kubernetes.io/name' && e.operator === 'In');
  if (byName) return [byName];
  return names?.values ?? null;
}

function checkInfrastructureIngress(policies: NetworkPolicy[], overlay: string): void {
  for (const { engine, pods, port, clients } of infrastructure) {
    const governing = policies.filter(
      (p) => selects(p.spec.podSelector, pods) && (p.spec.policyTypes ?? ['Ingress']).includes('Ingress'),
    );
    if (governing.length === 0) {
      problems.push(`${overlay}: no NetworkPolicy limits who reaches ${engine}`);
      continue;
    }
    const admitted = new Set<string>();
    for (const policy of governing) {
      for (const rule of policy.spec.ingress ?? []) {
        const coversPort = !rule.ports || rule.ports.some((p) => p.port === undefined || p.port === port);
        if (!coversPort) continue;
        for (const peer of rule.from ?? [{}]) {
          // The engine's own pods (replication, clustering) are no outside client.
          if (peer.podSelector && !peer.namespaceSelector && selects(peer.podSelector, pods)) continue;
          const services = admittedServices(peer);
          if (services === null) {
            problems.push(
              `${overlay}: NetworkPolicy ${policy.metadata?.name} lets more than Orbital's services reach ${engine} on ${port}`,
            );
            continue;
          }
          for (const service of services) admitted.add(service);
        }
      }
    }
    const extra = [...admitted].filter((service) => !clients.includes(service));
    if (extra.length > 0) problems.push(`${overlay}: ${engine} admits ${extra.join(', ')}, which do not use it`);
    const missing = clients.filter((service) => !admitted.has(service));
    if (missing.length > 0) problems.push(`${overlay}: ${engine} does not admit ${missing.join(', ')}, which use it`);
  }
}

// 1. Every manifest file on its own; the base's NetworkPolicies also as written (kubectl may be missing).
const basePolicies: NetworkPolicy[] = [];
for (const file of yamlFiles(kubernetesDir)) {
  for (const object of parse(readFileSync(file, 'utf8'), relative(root, file))) {
    await validateObject(object, relative(root, file));
    if (object.kind === 'NetworkPolicy' && relative(kubernetesDir, file).startsWith('base/')) {
      basePolicies.push(object as NetworkPolicy);
    }
  }
}
checkInfrastructureIngress(basePolicies, 'base');

// 2. Each overlay as kustomize renders it, with the example secrets standing in for the real ones.
const overlays = readdirSync(join(kubernetesDir, 'overlays')).filter((d) =>
  statSync(join(kubernetesDir, 'overlays', d)).isDirectory(),
);
const scratch = mkdtempSync(join(tmpdir(), 'orbital-kustomize-'));
cpSync(kubernetesDir, scratch, { recursive: true });
for (const overlay of overlays) {
  const dir = join(scratch, 'overlays', overlay);
  for (const example of readdirSync(join(scratch, 'overlays/production')).filter((f) => f.endsWith('.example'))) {
    const file = join(dir, example.replace(/\.example$/, ''));
    if (!existsSync(file)) cpSync(join(scratch, 'overlays/production', example), file);
  }
  let objects: K8sObject[];
  try {
    objects = renderKustomization(dir) as K8sObject[];
  } catch (error) {
    problems.push(`overlays/${overlay}: kustomize rendering failed: ${(error as Error).message}`);
    continue;
  }
  for (const object of objects) await validateObject(object, `overlays/${overlay} (rendered)`);
  checkPolicies(objects, `overlays/${overlay}`);
}

// 4. The NATS users and permissions generated from the contract catalogue are a configuration the NATS
// server accepts (checked by nats-server itself where it is installed).
const natsServer = process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server';
if (existsSync(natsServer)) {
  const scratch = mkdtempSync(join(tmpdir(), 'orbital-nats-config-'));
  const file = join(scratch, 'nats.conf');
  const users = Object.fromEntries(processNames.map((name) => [name, generateNatsUser().publicKey]));
  writeFileSync(file, natsServerConfig({ users, prefix: 'check', server: `jetstream { store_dir: "${scratch}" }` }));
  try {
    execFileSync(natsServer, ['-t', '-c', file], { stdio: 'pipe' });
  } catch (error) {
    problems.push(
      `the generated NATS configuration is refused by nats-server: ${String((error as { stderr?: Buffer }).stderr ?? error)}`,
    );
  }
} else {
  console.warn('nats-server is not installed: the generated NATS configuration was not checked.');
}

// 3. The compose file parses and every Orbital service in it runs a known entry.
const compose = parse(readFileSync(join(root, 'deploy/compose.yaml'), 'utf8'), 'deploy/compose.yaml')[0] as {
  services?: Record<string, { command?: string[] }>;
};
const entries = ['gateway-api', 'settings', 'satellite-registry', 'installations', 'jobs', 'satellite'];
for (const entry of entries) {
  if (compose?.services?.[entry]?.command?.[0] !== entry)
    problems.push(`deploy/compose.yaml: service ${entry} missing or not running its entry`);
}

if (problems.length > 0) {
  console.error(`deploy/ has ${problems.length} problem(s):\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  process.exit(1);
}
console.log(
  `deploy/: ${checked} Kubernetes objects valid across the manifest files and ${overlays.length} rendered overlays; compose file consistent.`,
);
