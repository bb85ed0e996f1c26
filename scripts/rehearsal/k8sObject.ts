/** A Kubernetes object as YAML gives it: only the fields every kind has are typed. */
export type K8sObject = {
  apiVersion?: string;
  kind?: string;
  metadata?: {
    name?: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    [field: string]: unknown;
  };
  [field: string]: unknown;
};

/** `Kind/name` (with the namespace when there is one): how messages name an object. */
export function objectName(object: K8sObject): string {
  const namespace = object.metadata?.namespace ? `${object.metadata.namespace}/` : '';
  return `${object.kind ?? '?'} ${namespace}${object.metadata?.name ?? '?'}`;
}
