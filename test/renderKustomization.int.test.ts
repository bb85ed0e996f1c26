import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import type { K8sObject } from '../scripts/rehearsal/k8sObject.ts';
import { renderKustomization } from '../scripts/rehearsal/renderKustomization.ts';

/** A kustomization tree in a temporary folder: path -> file content. */
function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'orbital-kustomize-test-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const find = (objects: K8sObject[], kind: string, name: RegExp | string) =>
  objects.find(
    (o) =>
      o.kind === kind && (typeof name === 'string' ? o.metadata?.name === name : name.test(o.metadata?.name ?? '')),
  );

const deployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 3
  selector:
    matchLabels: { app: web }
  template:
    metadata:
      labels: { app: web }
    spec:
      containers:
        - name: web
          image: example/web:1.0
          envFrom:
            - configMapRef: { name: web-config }
          env:
            - name: PASSWORD
              valueFrom:
                secretKeyRef: { name: web-secret, key: PASSWORD }
          volumeMounts:
            - { name: config, mountPath: /etc/web }
      volumes:
        - name: config
          configMap: { name: web-config }
`;

const base = {
  'base/kustomization.yaml': `resources: [deployment.yaml, service.yaml]
labels:
  - pairs: { team: core }
configMapGenerator:
  - name: web-config
    literals: [MODE=fast, "GREETING='hello <world> & more'"]
`,
  'base/deployment.yaml': deployment,
  'base/service.yaml': `apiVersion: v1
kind: Service
metadata: { name: web }
spec:
  selector: { app: web }
  ports: [{ port: 80 }]
`,
  'component/kustomization.yaml': `apiVersion: kustomize.config.k8s.io/v1alpha1
kind: Component
resources: [extra.yaml]
patches:
  - target: { kind: Deployment, name: "w.*" }
    patch: |-
      - op: add
        path: /spec/template/spec/containers/0/args
        value: [--verbose]
`,
  'component/extra.yaml': `apiVersion: v1
kind: ConfigMap
metadata: { name: extra }
data: { A: "1" }
`,
  'overlay/kustomization.yaml': `namespace: shop
resources: [../base, namespace.yaml]
components: [../component]
images:
  - name: example/web
    newName: registry.example.org/web
    newTag: "2.0"
replicas:
  - name: web
    count: 2
secretGenerator:
  - name: web-secret
    envs: [secret.env]
configMapGenerator:
  - name: web-config
    behavior: merge
    literals: [MODE=slow]
patches:
  - patch: |-
      apiVersion: apps/v1
      kind: Deployment
      metadata: { name: web }
      spec:
        template:
          spec:
            containers:
              - name: web
                env:
                  - { name: EXTRA, value: "yes" }
`,
  'overlay/namespace.yaml': 'apiVersion: v1\nkind: Namespace\nmetadata: { name: shop }\n',
  'overlay/secret.env': '# a comment\nPASSWORD=s3cret=with=equals\n\n',
};

describe('renderKustomization', () => {
  const objects = renderKustomization(join(tree(base), 'overlay'));
  type Pod = {
    containers: Array<{
      image: string;
      args?: string[];
      envFrom: Array<{ configMapRef: { name: string } }>;
      env: Array<{ name: string; valueFrom?: { secretKeyRef: { name: string } } }>;
    }>;
    volumes: Array<{ configMap: { name: string } }>;
  };
  type Workload = K8sObject & {
    spec: {
      replicas: number;
      selector: { matchLabels: Record<string, string> };
      template: { metadata: { labels: Record<string, string> }; spec: Pod };
    };
  };
  const web = find(objects, 'Deployment', 'web') as Workload;
  const container = web.spec.template.spec.containers[0] as Pod['containers'][number];

  it('puts every namespaced object into the namespace and leaves the Namespace itself alone', () => {
    expect(objects.filter((o) => o.kind !== 'Namespace').every((o) => o.metadata?.namespace === 'shop')).toBe(true);
    expect(find(objects, 'Namespace', 'shop')?.metadata?.namespace).toBeUndefined();
  });

  it("labels the base's objects (metadata only, not selectors or templates) and not the overlay's", () => {
    expect(web.metadata?.labels).toEqual({ team: 'core' });
    expect(web.spec.selector.matchLabels).toEqual({ app: 'web' });
    expect(web.spec.template.metadata.labels).toEqual({ app: 'web' });
    expect(find(objects, 'Namespace', 'shop')?.metadata?.labels).toBeUndefined();
  });

  it('generates with a content hash in the name (kustomize v5 hashes) and points every reference at it', () => {
    const secret = find(objects, 'Secret', /^web-secret-/) as K8sObject;
    expect(secret.metadata?.name).toBe('web-secret-bh6h6d9kf6');
    expect(secret.type).toBe('Opaque');
    expect(Buffer.from((secret.data as Record<string, string>).PASSWORD as string, 'base64').toString()).toBe(
      's3cret=with=equals',
    );
    const config = find(objects, 'ConfigMap', /^web-config-/) as K8sObject;
    expect(config.data).toEqual({ MODE: 'slow', GREETING: 'hello <world> & more' });
    expect(config.metadata?.name).toBe('web-config-t4b4f7mfff');
    expect(container.envFrom[0]?.configMapRef.name).toBe(config.metadata?.name);
    expect(container.env.find((e) => e.name === 'PASSWORD')?.valueFrom?.secretKeyRef.name).toBe(secret.metadata?.name);
    expect(web.spec.template.spec.volumes[0]?.configMap.name).toBe(config.metadata?.name);
  });

  it('applies images, replicas, a component with its patch, and a strategic merge patch', () => {
    expect(container.image).toBe('registry.example.org/web:2.0');
    expect(web.spec.replicas).toBe(2);
    expect(find(objects, 'ConfigMap', 'extra')?.data).toEqual({ A: '1' });
    expect(container.args).toEqual(['--verbose']);
    expect(container.env.map((e) => e.name)).toEqual(['EXTRA', 'PASSWORD']);
  });

  it('refuses what it does not implement, naming the field', () => {
    const root = tree({ 'kustomization.yaml': 'resources: []\nnamePrefix: shop-\n' });
    expect(() => renderKustomization(root)).toThrow(/"namePrefix" is not supported by this renderer/);
  });

  it('fails a patch whose path does not exist, naming the object', () => {
    const root = tree({
      'kustomization.yaml': `resources: [d.yaml]
patches:
  - target: { kind: Deployment }
    patch: |-
      - op: replace
        path: /spec/nothing/here
        value: 1
`,
      'd.yaml': deployment,
    });
    expect(() => renderKustomization(root)).toThrow(/patch of Deployment web: JSON patch path \/spec\/nothing\/here/);
  });
});

/** kubectl with kustomize v5, when this machine has it: the renderer must give exactly what it gives. */
function kubectlKustomize(): ((dir: string) => K8sObject[]) | null {
  try {
    const version = execFileSync('kubectl', ['version', '--client'], { encoding: 'utf8' });
    if (!/Kustomize Version: v5\./.test(version)) return null;
  } catch {
    return null;
  }
  return (dir) =>
    parseAllDocuments(execFileSync('kubectl', ['kustomize', dir], { encoding: 'utf8' })).map(
      (doc) => doc.toJS() as K8sObject,
    );
}

const kubectl = kubectlKustomize();
describe.runIf(kubectl)('renderKustomization against kubectl kustomize', () => {
  const canonical = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(canonical)
      : value && typeof value === 'object'
        ? Object.fromEntries(
            Object.keys(value)
              .sort()
              .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
          )
        : value;
  const byName = (objects: K8sObject[]) =>
    Object.fromEntries(
      objects.map((o) => [`${o.kind}/${o.metadata?.namespace ?? ''}/${o.metadata?.name}`, canonical(o)]),
    );

  it('renders the test tree as kubectl does', () => {
    const dir = join(tree(base), 'overlay');
    expect(byName(renderKustomization(dir))).toEqual(byName(kubectl?.(dir) ?? []));
  });

  it("renders every overlay of deploy/kubernetes as kubectl does (the examples standing in for the operator's files)", () => {
    const scratch = mkdtempSync(join(tmpdir(), 'orbital-kustomize-overlays-'));
    cpSync(resolve(import.meta.dirname, '../deploy/kubernetes'), scratch, { recursive: true });
    const overlays = readdirSync(join(scratch, 'overlays'), { withFileTypes: true }).filter((d) => d.isDirectory());
    expect(overlays.length).toBeGreaterThan(0);
    for (const overlay of overlays) {
      const dir = join(scratch, 'overlays', overlay.name);
      for (const example of readdirSync(join(scratch, 'overlays/production')).filter((f) => f.endsWith('.example'))) {
        const file = join(dir, example.replace(/\.example$/, ''));
        if (!existsSync(file)) cpSync(join(scratch, 'overlays/production', example), file);
      }
      expect(byName(renderKustomization(dir)), overlay.name).toEqual(byName(kubectl?.(dir) ?? []));
    }
  });
});
