/** One RFC 6902 operation, as kustomize's `patches` take them inline. */
export type JsonPatchOperation = { op: string; path: string; value?: unknown; from?: string };

function pointer(path: string): string[] {
  if (path === '') return [];
  if (!path.startsWith('/')) throw new Error(`JSON patch path ${path} must start with /`);
  return path
    .slice(1)
    .split('/')
    .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'));
}

function parentOf(document: unknown, parts: string[], path: string): { parent: unknown; key: string } {
  let node = document;
  for (const part of parts.slice(0, -1)) {
    const next = Array.isArray(node)
      ? node[Number(part)]
      : node && typeof node === 'object'
        ? (node as Record<string, unknown>)[part]
        : undefined;
    if (next === undefined) throw new Error(`JSON patch path ${path} does not exist`);
    node = next;
  }
  return { parent: node, key: parts.at(-1) ?? '' };
}

function read(document: unknown, path: string): unknown {
  const parts = pointer(path);
  if (parts.length === 0) return document;
  const { parent, key } = parentOf(document, parts, path);
  const value = Array.isArray(parent) ? parent[Number(key)] : (parent as Record<string, unknown>)[key];
  if (value === undefined) throw new Error(`JSON patch path ${path} does not exist`);
  return value;
}

function remove(document: unknown, path: string): void {
  const { parent, key } = parentOf(document, pointer(path), path);
  if (Array.isArray(parent)) {
    const index = Number(key);
    if (!(index >= 0 && index < parent.length)) throw new Error(`JSON patch path ${path} does not exist`);
    parent.splice(index, 1);
  } else {
    const record = parent as Record<string, unknown>;
    if (!(key in record)) throw new Error(`JSON patch path ${path} does not exist`);
    delete record[key];
  }
}

function put(document: unknown, path: string, value: unknown, mode: 'add' | 'replace'): void {
  const { parent, key } = parentOf(document, pointer(path), path);
  if (Array.isArray(parent)) {
    const index = key === '-' ? parent.length : Number(key);
    if (!(index >= 0 && index <= parent.length)) throw new Error(`JSON patch path ${path} does not exist`);
    if (mode === 'add') parent.splice(index, 0, value);
    else if (index < parent.length) parent[index] = value;
    else throw new Error(`JSON patch path ${path} does not exist`);
    return;
  }
  if (!parent || typeof parent !== 'object') throw new Error(`JSON patch path ${path} does not exist`);
  const record = parent as Record<string, unknown>;
  if (mode === 'replace' && !(key in record)) throw new Error(`JSON patch path ${path} does not exist`);
  record[key] = value;
}

/** Applies RFC 6902 operations to `document` in place; a path that does not exist fails, as in kustomize. */
export function applyJsonPatch(document: unknown, operations: JsonPatchOperation[]): void {
  for (const operation of operations) {
    const copy = (value: unknown) => structuredClone(value);
    switch (operation.op) {
      case 'add':
        put(document, operation.path, copy(operation.value), 'add');
        break;
      case 'replace':
        put(document, operation.path, copy(operation.value), 'replace');
        break;
      case 'remove':
        remove(document, operation.path);
        break;
      case 'copy':
        put(document, operation.path, copy(read(document, operation.from ?? '')), 'add');
        break;
      case 'move': {
        const value = read(document, operation.from ?? '');
        remove(document, operation.from ?? '');
        put(document, operation.path, value, 'add');
        break;
      }
      case 'test':
        if (JSON.stringify(read(document, operation.path)) !== JSON.stringify(operation.value)) {
          throw new Error(`JSON patch test failed at ${operation.path}`);
        }
        break;
      default:
        throw new Error(`unknown JSON patch operation ${operation.op}`);
    }
  }
}
