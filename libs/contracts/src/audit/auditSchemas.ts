import { z } from 'zod';
import { teamIdField } from '../ids.ts';
import { isoTimestamp } from '../isoTimestamp.ts';
import { processName } from '../processes.ts';

/**
 * Who acted. `process`: a platform process on its own account (a schedule's tick, database setup);
 * `client`: an OAuth client acting with its own credentials (revoking one of its tokens).
 */
export const auditActorKinds = ['user', 'satellite', 'process', 'client', 'anonymous'] as const;

/**
 * The actor as they were when they acted: the e-mail and name are copied, not looked up later, so an
 * entry still says who it was after the person is renamed or deleted. An anonymous actor may carry the
 * e-mail address someone tried to sign in with.
 */
export const auditActor = z.object({
  kind: z.enum(auditActorKinds),
  /** User id, satellite id, process name or OAuth client id; null for anonymous. */
  id: z.string().min(1).max(200).nullable(),
  email: z.string().max(320).nullable(),
  name: z.string().max(200).nullable(),
});
export type AuditActor = z.infer<typeof auditActor>;

/** What the action was done to: `user`, `team`, `setting`, `installation`, `satellite`, ... and its id. */
export const auditTarget = z.object({
  kind: z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, 'a lower-case word, with _ between words'),
  id: z.string().min(1).max(300).nullable(),
});
export type AuditTarget = z.infer<typeof auditTarget>;

export const auditOutcome = z.enum(['success', 'failure']);
export type AuditOutcome = z.infer<typeof auditOutcome>;

/** `<target kind>.<what happened>`, lower case: the names are listed in auditActions. */
export const auditActionName = z
  .string()
  .max(100)
  .regex(/^[a-z][a-z_]*(\.[a-z][a-z_]*)+$/, 'an action name such as installation.created');

/**
 * Detail keys that name a secret. An entry never carries one: a token is recorded by its id, a setting by
 * its key (and an encrypted one never by its value). Checked at every level of the details, by the
 * contract itself, so neither a careless owner nor a forged request can put one into the log.
 */
const secretKey =
  /(^|_)(password|passphrase|secret|secrets|token|tokens|api_key|private_key|cookie|authorization|code_verifier|ciphertext)$/;

/** The keys of `details` (at any depth) that name a secret, as dotted paths. */
export function secretDetailPaths(value: unknown, path: string[] = []): string[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => secretDetailPaths(item, [...path, String(i)]));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, inner]) => [
    ...(secretKey.test(key.toLowerCase()) ? [[...path, key].join('.')] : []),
    ...secretDetailPaths(inner, [...path, key]),
  ]);
}

/** Largest serialised `details`: an entry describes an action, it does not carry its payload. */
export const auditDetailsMaxBytes = 8192;

// Values are JSON (checked below by writing them out) rather than z.json(), whose recursive schema the
// OpenAPI document cannot reference.
export const auditDetails = z
  .record(z.string().regex(/^[a-z][a-z0-9_]{0,63}$/), z.unknown())
  .superRefine((details, ctx) => {
    for (const path of secretDetailPaths(details)) {
      ctx.addIssue({ code: 'custom', path: path.split('.'), message: 'an audit entry never carries a secret' });
    }
    let text: string;
    try {
      text = JSON.stringify(details);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'details must be JSON' });
      return;
    }
    if (new TextEncoder().encode(text).length > auditDetailsMaxBytes) {
      ctx.addIssue({ code: 'custom', message: `details must stay under ${auditDetailsMaxBytes} bytes` });
    }
  });
export type AuditDetails = z.infer<typeof auditDetails>;

/**
 * One entry of the audit log, as its owner records it and as the log answers it. The id is made by the
 * owner when it records the action, so a delivery repeated after a lost reply is stored once; the time
 * is when the action happened, by the owner's clock.
 */
export const auditEntry = z.object({
  id: z.uuid(),
  occurred_at: isoTimestamp,
  /** The process that performed the action and recorded it. */
  source: processName,
  action: auditActionName,
  actor: auditActor,
  target: auditTarget,
  /** The team the action belongs to; its team admins see the entry. Null for platform actions. */
  team_id: z.string().min(1).max(200).nullable(),
  outcome: auditOutcome,
  /** Why it failed (a code such as `invalid_credentials`), or null on success. */
  reason: z.string().max(500).nullable(),
  /** The address the request came from, as gateway-api saw it (after TRUST_PROXY). */
  source_ip: z.string().max(64).nullable(),
  /** The request id, to find the request's log lines. */
  request_id: z.string().max(128).nullable(),
  details: auditDetails,
});
export type AuditEntry = z.infer<typeof auditEntry>;

/**
 * An entry as its owner delivers it: everything but the source, which the log takes from the signed
 * identity of the service delivering it, so no service can write entries in another's name.
 */
export const auditEntryInput = auditEntry.omit({ source: true }).strict();
export type AuditEntryInput = z.infer<typeof auditEntryInput>;

export const auditPageLimitMax = 500;

/**
 * Filters of the audit log, the same for a page, the live stream and an export. `actor` matches the
 * actor's id or e-mail address (case-insensitive); `action` an action name, or every action of a kind
 * when it ends in `.*` (`installation.*`); `from` is inclusive, `to` exclusive.
 */
export const auditFilter = z
  .object({
    actor: z.string().min(1).max(320).optional(),
    action: z
      .string()
      .max(100)
      .regex(/^[a-z][a-z_]*(\.[a-z][a-z_]*)*(\.\*)?$/, 'an action name, or a kind followed by .* (installation.*)')
      .optional(),
    target_kind: z.string().max(64).optional(),
    target_id: z.string().min(1).max(300).optional(),
    team_id: teamIdField.optional(),
    outcome: auditOutcome.optional(),
    source: processName.optional(),
    from: isoTimestamp.optional(),
    to: isoTimestamp.optional(),
  })
  .strict();
export type AuditFilter = z.infer<typeof auditFilter>;

/** A page of the log: newest first; `cursor` is the `next_cursor` of the page before. */
export const auditQuery = auditFilter
  .extend({
    limit: z.coerce.number().int().min(1).max(auditPageLimitMax).default(50),
    cursor: z
      .string()
      .max(200)
      .regex(/^[A-Za-z0-9_-]+$/, 'a next_cursor given by the previous page')
      .optional(),
  })
  .strict();
export type AuditQuery = z.infer<typeof auditQuery>;

export const auditPage = z.object({
  entries: z.array(auditEntry),
  /** Null on the last page. */
  next_cursor: z.string().nullable(),
});
export type AuditPage = z.infer<typeof auditPage>;

/**
 * Where a request came from and who made it, as gateway-api saw it: the client's address and the
 * signed-in person's e-mail and name. It travels in a header beside the signed identity and is believed
 * only on requests whose identity gateway-api vouches for (people, satellites, anonymous callers); a
 * service speaking for itself has no origin.
 */
export const requestOrigin = z.object({
  source_ip: z.string().max(64).nullable(),
  user_email: z.string().max(320).nullable().optional(),
  user_name: z.string().max(200).nullable().optional(),
});
export type RequestOrigin = z.infer<typeof requestOrigin>;
