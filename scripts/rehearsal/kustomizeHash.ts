import { createHash } from 'node:crypto';
import type { K8sObject } from './k8sObject.ts';

/** JSON as Go's encoding/json writes it: map keys sorted, and <, >, & and the line separators escaped. */
function goJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') {
    return JSON.stringify(value)
      .replaceAll('<', '\\u003c')
      .replaceAll('>', '\\u003e')
      .replaceAll('&', '\\u0026')
      .replaceAll('\u2028', '\\u2028')
      .replaceAll('\u2029', '\\u2029');
  }
  if (typeof value === 'number' || typeof value === 'boolean') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(goJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, item]) => `${goJson(key)}:${goJson(item)}`).join(',')}}`;
}

/**
 * The suffix kustomize (v5, api/hasher) appends to a generated ConfigMap's or Secret's name: SHA-256 of
 * the JSON of its kind, name, data (and type for a Secret; binaryData or stringData when they are maps),
 * the first ten hex digits with 0, 1, 3, a and e replaced so the suffix never reads as a word or a number.
 * The name it hashes is always empty: kustomize looks the name up as one field called "metadata/name",
 * which no object has, so two generators with the same data get the same suffix. Matched here, since the
 * point is to render what kustomize renders.
 */
export function kustomizeNameHash(object: K8sObject): string {
  const isMap = (value: unknown) => value !== null && typeof value === 'object' && !Array.isArray(value);
  const data = object.data ?? '';
  const fields: Record<string, unknown> =
    object.kind === 'Secret'
      ? { kind: 'Secret', type: object.type ?? '', name: '', data }
      : { kind: 'ConfigMap', name: '', data };
  if (object.kind === 'Secret' && isMap(object.stringData)) fields.stringData = object.stringData;
  if (object.kind !== 'Secret' && isMap(object.binaryData)) fields.binaryData = object.binaryData;
  const hex = createHash('sha256').update(goJson(fields)).digest('hex');
  const replacements: Record<string, string> = { '0': 'g', '1': 'h', '3': 'k', a: 'm', e: 't' };
  return [...hex.slice(0, 10)].map((c) => replacements[c] ?? c).join('');
}
