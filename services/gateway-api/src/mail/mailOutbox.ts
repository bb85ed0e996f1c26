import { type CommonQueryMethods, type LivePool, sql } from '@orbital/db';
import { z } from 'zod';

/** What the outbox sends: each kind has its text in renderMail.ts. */
export const mailKinds = [
  'verify_email',
  'password_reset',
  'invitation',
  'registration_exists',
  'satellite_offline',
] as const;
export type MailKind = (typeof mailKinds)[number];

export type QueuedMail = {
  kind: MailKind;
  recipient: string;
  /** What the text needs (a name, a team): never a secret. */
  params: Record<string, string>;
  /** The account token or invitation whose link the mail carries; its token is made when it is sent. */
  tokenRef?: string | null;
  /** Dropped unsent after this long (a link nobody received in time is worth nothing). */
  expiresInMs: number;
  /** Names what the mail is about and whom it is for: a second mail with the same key is not queued. */
  onceKey?: string;
};

const claimedRow = z.object({
  id: z.string(),
  kind: z.enum(mailKinds),
  recipient: z.string(),
  params: z.record(z.string(), z.string()),
  token_ref: z.string().nullable(),
  attempts: z.number(),
});
export type ClaimedMail = z.infer<typeof claimedRow>;

/**
 * Queues a mail in the caller's transaction: it is sent after commit, never while the request waits.
 * Null when a mail with the same `onceKey` was queued before (nothing is queued again).
 */
export async function queueMail(db: CommonQueryMethods, mail: QueuedMail): Promise<string | null> {
  return db.maybeOneFirst(sql.type(z.object({ id: z.string() }))`
    INSERT INTO identity.mail_outbox (kind, recipient, params, token_ref, expires_at, once_key)
    VALUES (${mail.kind}, ${mail.recipient}, ${sql.jsonb(mail.params)}, ${mail.tokenRef ?? null},
            now() + make_interval(secs => ${mail.expiresInMs / 1000}), ${mail.onceKey ?? null})
    ON CONFLICT (once_key) WHERE once_key IS NOT NULL DO NOTHING
    RETURNING id`);
}

/** The outbox's rows as the sending loop takes and settles them. */
export function createMailOutbox(pool: LivePool) {
  const db = () => pool.get();
  return {
    /**
     * Takes up to `limit` due mails for `leaseMs`: rows another replica is taking are skipped (SKIP
     * LOCKED) and rows it holds stay its own until the lease ends, so two replicas never send one mail
     * at once; a replica that dies mid-send lets its rows go when the lease ends.
     */
    async claim(limit: number, leaseMs: number): Promise<readonly ClaimedMail[]> {
      return db().any(sql.type(claimedRow)`
        UPDATE identity.mail_outbox
        SET locked_until = now() + make_interval(secs => ${leaseMs / 1000}), attempts = attempts + 1
        WHERE id IN (
          SELECT id FROM identity.mail_outbox
          WHERE status = 'pending' AND next_attempt_at <= now() AND expires_at > now()
            AND (locked_until IS NULL OR locked_until < now())
          ORDER BY next_attempt_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
        RETURNING id, kind, recipient, params, token_ref, attempts`);
    },
    async sent(id: string): Promise<void> {
      await db().query(sql.unsafe`
        UPDATE identity.mail_outbox SET status = 'sent', sent_at = now(), locked_until = NULL, last_error = NULL
        WHERE id = ${id}`);
    },
    /** A failed attempt: tried again after `retryInMs`, or given up (`failed`) when that is null. */
    async failed(id: string, error: string, retryInMs: number | null): Promise<void> {
      await db().query(sql.unsafe`
        UPDATE identity.mail_outbox
        SET last_error = ${error.slice(0, 500)}, locked_until = NULL,
            status = ${retryInMs === null ? 'failed' : 'pending'},
            next_attempt_at = now() + make_interval(secs => ${(retryInMs ?? 0) / 1000})
        WHERE id = ${id}`);
    },
    /** A mail with nothing left to send (its link was used or withdrawn meanwhile). */
    async dropped(id: string, why: string): Promise<void> {
      await db().query(sql.unsafe`
        UPDATE identity.mail_outbox SET status = 'expired', locked_until = NULL, last_error = ${why}
        WHERE id = ${id}`);
    },
    /** Marks mails past their end as expired; returns how many. */
    async expire(): Promise<number> {
      const result = await db().query(sql.unsafe`
        UPDATE identity.mail_outbox SET status = 'expired'
        WHERE status = 'pending' AND expires_at <= now()`);
      return result.rowCount;
    },
  };
}
export type MailOutbox = ReturnType<typeof createMailOutbox>;
