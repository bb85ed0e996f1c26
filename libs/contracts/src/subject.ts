import { z } from 'zod';
import type { SubjectAccess } from './access/subjectAccess.ts';
import type { ProcessName } from './processes.ts';

/**
 * The namespaces of request/reply subjects. Each is also the queue group its replicas share, and each
 * is answered by one process (`identity` by gateway-api, which owns users, teams and sessions; `audit`
 * by settings, which stores the audit log).
 */
export const serviceNames = ['settings', 'registry', 'installations', 'identity', 'jobs', 'audit'] as const;
export type ServiceName = (typeof serviceNames)[number];

const servingProcess: Record<ServiceName, ProcessName> = {
  settings: 'settings',
  registry: 'satellite-registry',
  installations: 'installations',
  identity: 'gateway-api',
  jobs: 'jobs',
  // The audit log is stored by the settings service, beside the platform's other records of its own.
  audit: 'settings',
};

/**
 * A request/reply subject: its name (`<service>.<resource>.<verb>`, before the deployment prefix),
 * the service that answers it, who may call it, and the schemas of both directions. The bus helpers
 * take this object, so a requester and its handler cannot disagree about a payload, and `bus.serve`
 * enforces `access` before the handler runs.
 */
export type SubjectDef<Req extends z.ZodType = z.ZodType, Rep extends z.ZodType = z.ZodType> = {
  readonly subject: string;
  readonly service: ServiceName;
  readonly description: string;
  readonly access: SubjectAccess;
  readonly request: Req;
  readonly reply: Rep;
};

export type RequestOf<S extends SubjectDef> = z.input<S['request']>;
export type ParsedRequestOf<S extends SubjectDef> = z.output<S['request']>;
export type ReplyOf<S extends SubjectDef> = z.output<S['reply']>;

const subjectPattern = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/;

export function defineSubject<Req extends z.ZodType, Rep extends z.ZodType>(
  def: SubjectDef<Req, Rep>,
): SubjectDef<Req, Rep> {
  if (!subjectPattern.test(def.subject)) throw new Error(`invalid subject name: ${def.subject}`);
  if (!def.subject.startsWith(`${def.service}.`)) {
    throw new Error(`subject ${def.subject} must start with its service name ${def.service}`);
  }
  return def;
}

/** The process whose replicas answer a subject. */
export function servedBy(def: Pick<SubjectDef, 'service'>): ProcessName {
  return servingProcess[def.service];
}

/**
 * A token of a subject built from data (an id, an event type segment). NATS gives `.`, `*`, `>` and
 * white space meaning, so a token holding them could address other subjects.
 */
export const subjectToken = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[^.*>\s]+$/, 'must not contain ".", "*", ">" or white space');

export function assertSubjectToken(value: string): string {
  return subjectToken.parse(value);
}

/** An empty request body, for subjects whose request carries nothing but headers. */
export const emptyRequest = z.object({}).strict();
