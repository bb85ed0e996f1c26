import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { applyJsonPatch, type JsonPatchOperation } from './applyJsonPatch.ts';
import { type K8sObject, objectName } from './k8sObject.ts';
import { kustomizeNameHash } from './kustomizeHash.ts';

/**
 * Renders a kustomization directory as `kubectl kustomize` (kustomize v5) does, for the subset of
 * kustomize that deploy/kubernetes uses: resources (files and directories), components, namespace,
 * labels, images, replicas, configMapGenerator and secretGenerator (envs, literals, files, options,
 * behavior) with their name hash and the references to them, and patches (RFC 6902 and strategic merge,
 * inline or from a file, with a target). Anything else stops with a message naming the field, so the
 * subset can never be silently wrong. The rehearsal and `npm run check:deploy` render with it, so neither
 * needs kubectl; renderKustomization.test.ts compares it with `kubectl kustomize` where that is installed.
 */
export function renderKustomization(dir: string): K8sObject[] {
  const built = build(resolve(dir), 'Kustomization');
  return finish(built);
}

type Kustomization = {
  kind?: string;
  resources?: string[];
  components?: string[];
  namespace?: string;
  labels?: Array<{ pairs: Record<string, string>; includeSelectors?: boolean; includeTemplates?: boolean }>;
  images?: Array<{ name: string; newName?: string; newTag?: string; digest?: string }>;
  replicas?: Array<{ name: string; count: number }>;
  configMapGenerator?: Generator[];
  secretGenerator?: Generator[];
  generatorOptions?: GeneratorOptions;
  patches?: Array<{ path?: string; patch?: string; target?: PatchTarget; options?: Record<string, boolean> }>;
  [field: string]: unknown;
};
type GeneratorOptions = {
  disableNameSuffixHash?: boolean;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  immutable?: boolean;
};
type Generator = {
  name: string;
  namespace?: string;
  behavior?: 'create' | 'merge' | 'replace';
  envs?: string[];
  literals?: string[];
  files?: string[];
  type?: string;
  options?: GeneratorOptions;
};
type PatchTarget = {
  group?: string;
  version?: string;
  kind?: string;
  name?: string;
  namespace?: string;
  labelSelector?: string;
  annotationSelector?: string;
};

const known = new Set([
  'apiVersion',
  'kind',
  'metadata',
  'resources',
  'components',
  'namespace',
  'labels',
  'images',
  'replicas',
  'configMapGenerator',
  'secretGenerator',
  'generatorOptions',
  'patches',
]);

/** A generated object waits for its name hash until the whole build is done, as in kustomize. */
const hashPending = new WeakSet<K8sObject>();
/** The name a generated object was declared with, which references use until the hash is known. */
const declaredName = new WeakMap<K8sObject, string>();

function readKustomization(dir: string): Kustomization {
  const file = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'].map((f) => join(dir, f)).find(existsSync);
  if (!file) throw new Error(`${dir} has no kustomization.yaml`);
  const kustomization = (parse(readFileSync(file, 'utf8')) ?? {}) as Kustomization;
  for (const field of Object.keys(kustomization)) {
    if (!known.has(field)) throw new Error(`${file}: "${field}" is not supported by this renderer`);
  }
  return kustomization;
}

function readObjects(file: string): K8sObject[] {
  return parseAllDocuments(readFileSync(file, 'utf8')).flatMap((doc) => {
    if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors[0]?.message}`);
    const value = doc.toJS() as K8sObject | null;
    return value ? [value] : [];
  });
}

function build(dir: string, expected: 'Kustomization' | 'Component', into: K8sObject[] = []): K8sObject[] {
  const k = readKustomization(dir);
  const kind = k.kind ?? 'Kustomization';
  if (kind !== expected) throw new Error(`${dir}: a ${kind} where a ${expected} was expected`);
  // A component works on what its parent has accumulated; a kustomization starts with nothing of its own.
  const objects = expected === 'Component' ? into : [];
  for (const entry of k.resources ?? []) {
    const path = resolve(dir, entry);
    if (statSync(path).isDirectory()) objects.push(...build(path, 'Kustomization'));
    else objects.push(...readObjects(path));
  }
  for (const entry of k.components ?? []) build(resolve(dir, entry), 'Component', objects);
  for (const generator of k.configMapGenerator ?? []) generate(dir, k, generator, 'ConfigMap', objects);
  for (const generator of k.secretGenerator ?? []) generate(dir, k, generator, 'Secret', objects);
  transform(dir, k, objects);
  return objects;
}

function parseEnvLines(text: string, file: string): Array<[string, string]> {
  return text.split(/\r?\n/).flatMap((raw): Array<[string, string]> => {
    const line = raw.replace(/^\s+/, '');
    if (line === '' || line.startsWith('#')) return [];
    const at = line.indexOf('=');
    if (at <= 0) throw new Error(`${file}: "${line.slice(0, 40)}" is not KEY=VALUE`);
    return [[line.slice(0, at), line.slice(at + 1)]];
  });
}

function generate(
  dir: string,
  k: Kustomization,
  generator: Generator,
  kind: 'ConfigMap' | 'Secret',
  objects: K8sObject[],
) {
  const data: Record<string, string> = {};
  for (const envFile of generator.envs ?? []) {
    const path = resolve(dir, envFile);
    for (const [key, value] of parseEnvLines(readFileSync(path, 'utf8'), path)) data[key] = value;
  }
  for (const literal of generator.literals ?? []) {
    const at = literal.indexOf('=');
    if (at <= 0) throw new Error(`${dir}: literal "${literal.slice(0, 40)}" is not KEY=VALUE`);
    let value = literal.slice(at + 1);
    if (/^(["']).*\1$/s.test(value)) value = value.slice(1, -1);
    data[literal.slice(0, at)] = value;
  }
  for (const entry of generator.files ?? []) {
    const at = entry.indexOf('=');
    const [key, file] = at > 0 ? [entry.slice(0, at), entry.slice(at + 1)] : [basename(entry), entry];
    data[key] = readFileSync(resolve(dir, file), 'utf8');
  }
  const options = { ...k.generatorOptions, ...generator.options };
  const object: K8sObject = {
    apiVersion: 'v1',
    kind,
    metadata: {
      name: generator.name,
      ...(generator.namespace ? { namespace: generator.namespace } : {}),
      ...(options.labels ? { labels: { ...options.labels } } : {}),
      ...(options.annotations ? { annotations: { ...options.annotations } } : {}),
    },
  };
  if (kind === 'Secret') {
    object.type = generator.type ?? 'Opaque';
    object.data = Object.fromEntries(
      Object.entries(data).map(([key, value]) => [key, Buffer.from(value).toString('base64')]),
    );
  } else {
    object.data = data;
  }
  if (options.immutable) object.immutable = true;
  const behavior = generator.behavior ?? 'create';
  const existing = objects.find((o) => o.kind === kind && (declaredName.get(o) ?? o.metadata?.name) === generator.name);
  if (behavior === 'create') {
    if (existing) throw new Error(`${dir}: ${kind} ${generator.name} is generated twice`);
    if (!options.disableNameSuffixHash) hashPending.add(object);
    declaredName.set(object, generator.name);
    objects.push(object);
    return;
  }
  if (!existing) throw new Error(`${dir}: ${kind} ${generator.name} has behavior ${behavior} but no base to act on`);
  existing.data = behavior === 'merge' ? { ...(existing.data as object), ...(object.data as object) } : object.data;
  if (options.disableNameSuffixHash) hashPending.delete(existing);
}

const workloadKinds = new Set(['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet', 'Job', 'CronJob', 'Pod']);

/** The pod spec of a workload, wherever its kind keeps it. */
export function podSpecOf(object: K8sObject): Record<string, unknown> | undefined {
  const spec = object.spec as Record<string, unknown> | undefined;
  if (!spec) return undefined;
  if (object.kind === 'Pod') return spec;
  if (object.kind === 'CronJob') {
    const job = (spec.jobTemplate as { spec?: { template?: { spec?: Record<string, unknown> } } }) ?? {};
    return job.spec?.template?.spec;
  }
  return (spec.template as { spec?: Record<string, unknown> } | undefined)?.spec;
}

type Container = { name: string; image?: string; [field: string]: unknown };
function containersOf(object: K8sObject): Container[] {
  const pod = podSpecOf(object);
  if (!pod) return [];
  return [...((pod.initContainers as Container[]) ?? []), ...((pod.containers as Container[]) ?? [])];
}

const clusterScoped = new Set([
  'Namespace',
  'ClusterRole',
  'ClusterRoleBinding',
  'CustomResourceDefinition',
  'PersistentVolume',
  'StorageClass',
  'PriorityClass',
  'IngressClass',
  'ValidatingWebhookConfiguration',
  'MutatingWebhookConfiguration',
  'APIService',
  'RuntimeClass',
  'VolumeAttachment',
  'CSIDriver',
  'CSINode',
]);

function transform(dir: string, k: Kustomization, objects: K8sObject[]) {
  if (k.namespace) {
    for (const object of objects) {
      if (clusterScoped.has(object.kind ?? '')) continue;
      object.metadata = { ...object.metadata, namespace: k.namespace };
    }
  }
  for (const patch of k.patches ?? []) applyPatch(dir, patch, objects);
  for (const label of k.labels ?? []) {
    for (const object of objects) {
      object.metadata = { ...object.metadata, labels: { ...object.metadata?.labels, ...label.pairs } };
      if (label.includeTemplates || label.includeSelectors) {
        const template = (object.spec as { template?: { metadata?: { labels?: Record<string, string> } } })?.template;
        if (template && workloadKinds.has(object.kind ?? '')) {
          template.metadata = { ...template.metadata, labels: { ...template.metadata?.labels, ...label.pairs } };
        }
      }
      if (label.includeSelectors)
        throw new Error(`${dir}: labels with includeSelectors are not supported by this renderer`);
    }
  }
  for (const image of k.images ?? []) {
    for (const container of objects.flatMap(containersOf)) {
      if (!container.image) continue;
      const parsed = parseImage(container.image);
      if (parsed.name !== image.name) continue;
      const name = image.newName ?? parsed.name;
      if (image.digest) container.image = `${name}@${image.digest}`;
      else if (image.newTag) container.image = `${name}:${image.newTag}`;
      else container.image = `${name}${parsed.tag ? `:${parsed.tag}` : ''}${parsed.digest ? `@${parsed.digest}` : ''}`;
    }
  }
  for (const replica of k.replicas ?? []) {
    const targets = objects.filter(
      (o) =>
        o.metadata?.name === replica.name &&
        ['Deployment', 'StatefulSet', 'ReplicaSet', 'ReplicationController'].includes(o.kind ?? ''),
    );
    if (targets.length === 0) throw new Error(`${dir}: replicas names ${replica.name}, which is not a workload here`);
    for (const target of targets) (target.spec as Record<string, unknown>).replicas = replica.count;
  }
}

function parseImage(image: string): { name: string; tag?: string; digest?: string } {
  const [withoutDigest, digest] = image.split('@') as [string, string | undefined];
  const lastSlash = withoutDigest.lastIndexOf('/');
  const colon = withoutDigest.indexOf(':', lastSlash + 1);
  const name = colon >= 0 ? withoutDigest.slice(0, colon) : withoutDigest;
  const tag = colon >= 0 ? withoutDigest.slice(colon + 1) : undefined;
  return { name, ...(tag ? { tag } : {}), ...(digest ? { digest } : {}) };
}

function matches(object: K8sObject, target: PatchTarget): boolean {
  const whole = (pattern: string, value: string | undefined) => new RegExp(`^(?:${pattern})$`).test(value ?? '');
  const [group, version] = (object.apiVersion ?? '').includes('/')
    ? (object.apiVersion ?? '').split('/')
    : ['', object.apiVersion ?? ''];
  if (target.kind && !whole(target.kind, object.kind)) return false;
  if (target.name && !whole(target.name, object.metadata?.name)) return false;
  if (target.namespace && !whole(target.namespace, object.metadata?.namespace)) return false;
  if (target.group !== undefined && !whole(target.group, group)) return false;
  if (target.version && !whole(target.version, version)) return false;
  if (target.labelSelector || target.annotationSelector) {
    throw new Error('patch targets by label or annotation selector are not supported by this renderer');
  }
  return true;
}

function applyPatch(dir: string, patch: NonNullable<Kustomization['patches']>[number], objects: K8sObject[]) {
  if (patch.options && Object.keys(patch.options).length > 0) {
    throw new Error(`${dir}: patch options are not supported by this renderer`);
  }
  const text = patch.patch ?? (patch.path ? readFileSync(resolve(dir, patch.path), 'utf8') : undefined);
  if (text === undefined) throw new Error(`${dir}: a patch needs patch or path`);
  const body = parse(text) as unknown;
  if (Array.isArray(body)) {
    if (!patch.target) throw new Error(`${dir}: a JSON 6902 patch needs a target`);
    const targets = objects.filter((o) => matches(o, patch.target as PatchTarget));
    for (const object of targets) {
      try {
        applyJsonPatch(object, body as JsonPatchOperation[]);
      } catch (error) {
        throw new Error(`${dir}: patch of ${objectName(object)}: ${(error as Error).message}`);
      }
    }
    return;
  }
  const merge = body as K8sObject;
  const target: PatchTarget = patch.target ?? {
    kind: merge.kind ?? '',
    name: merge.metadata?.name ?? '',
  };
  for (const object of objects.filter((o) => matches(o, target))) strategicMerge(object, merge, true);
}

/** Lists of these fields are merged item by item on `name`, as the Kubernetes types declare them. */
const mergeKeys: Record<string, string> = {
  containers: 'name',
  initContainers: 'name',
  env: 'name',
  volumes: 'name',
  volumeMounts: 'mountPath',
  ports: 'containerPort',
  imagePullSecrets: 'name',
};

/** A strategic merge patch in place: maps merge, null deletes, keyed lists merge by key, others replace. */
function strategicMerge(into: Record<string, unknown>, patch: Record<string, unknown>, top = false) {
  for (const [key, value] of Object.entries(patch)) {
    if (top && (key === 'apiVersion' || key === 'kind')) continue;
    if (key === '$patch') throw new Error('$patch directives are not supported by this renderer');
    if (value === null) {
      delete into[key];
    } else if (Array.isArray(value) && mergeKeys[key] && Array.isArray(into[key])) {
      const list = into[key] as Array<Record<string, unknown>>;
      const field = mergeKeys[key];
      // Items the patch adds come before the existing ones, in the patch's order, as kustomize writes them.
      const added: Array<Record<string, unknown>> = [];
      for (const item of value as Array<Record<string, unknown>>) {
        const existing = list.find((candidate) => candidate[field] === item[field]);
        if (existing) strategicMerge(existing, item);
        else added.push(structuredClone(item));
      }
      list.unshift(...added);
    } else if (
      value &&
      typeof value === 'object' &&
      !Array.isArray(value) &&
      into[key] &&
      typeof into[key] === 'object'
    ) {
      strategicMerge(into[key] as Record<string, unknown>, value as Record<string, unknown>);
    } else {
      into[key] = structuredClone(value);
    }
  }
}

/** The end of the whole build: generated names get their hash, and every reference to them follows. */
function finish(objects: K8sObject[]): K8sObject[] {
  const renamed = new Map<string, string>();
  for (const object of objects) {
    if (!hashPending.has(object)) continue;
    const name = object.metadata?.name ?? '';
    const hashed = `${name}-${kustomizeNameHash(object)}`;
    renamed.set(`${object.kind}/${object.metadata?.namespace ?? ''}/${name}`, hashed);
    object.metadata = { ...object.metadata, name: hashed };
  }
  if (renamed.size === 0) return objects;
  const rename = (kind: 'ConfigMap' | 'Secret', namespace: string | undefined, name: string | undefined) =>
    name === undefined ? undefined : (renamed.get(`${kind}/${namespace ?? ''}/${name}`) ?? name);
  for (const object of objects) {
    const pod = podSpecOf(object);
    if (!pod) continue;
    const namespace = object.metadata?.namespace;
    for (const container of containersOf(object)) {
      for (const source of (container.envFrom as Array<Record<string, { name?: string }>>) ?? []) {
        if (source.configMapRef) source.configMapRef.name = rename('ConfigMap', namespace, source.configMapRef.name);
        if (source.secretRef) source.secretRef.name = rename('Secret', namespace, source.secretRef.name);
      }
      for (const variable of (container.env as Array<{ valueFrom?: Record<string, { name?: string }> }>) ?? []) {
        const from = variable.valueFrom;
        if (from?.configMapKeyRef)
          from.configMapKeyRef.name = rename('ConfigMap', namespace, from.configMapKeyRef.name);
        if (from?.secretKeyRef) from.secretKeyRef.name = rename('Secret', namespace, from.secretKeyRef.name);
      }
    }
    for (const volume of (pod.volumes as Array<Record<string, Record<string, unknown>>>) ?? []) {
      if (volume.configMap) volume.configMap.name = rename('ConfigMap', namespace, volume.configMap.name as string);
      if (volume.secret) volume.secret.secretName = rename('Secret', namespace, volume.secret.secretName as string);
      for (const source of (volume.projected?.sources as Array<Record<string, { name?: string }>>) ?? []) {
        if (source.configMap) source.configMap.name = rename('ConfigMap', namespace, source.configMap.name);
        if (source.secret) source.secret.name = rename('Secret', namespace, source.secret.name);
      }
    }
  }
  return objects;
}
