import { createOutboxFlush, type LivePool } from '@orbital/db';
import type { Logger } from '@orbital/logger';
import type { SettingsReader } from '@orbital/settings-client';
import nodemailer from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import { type ClaimedMail, createMailOutbox } from './mailOutbox.ts';
import { readMailSettings } from './readMailSettings.ts';
import { renderMail } from './renderMail.ts';

/**
 * The link a mail carries, made when it is sent: a fresh token whose hash replaces the previous one, so
 * no token waits in the outbox. `gone` when there is nothing to link to any more (the link was used,
 * the invitation withdrawn): the mail is dropped.
 */
export type LinkMaker = (mail: ClaimedMail, pageUrl: string) => Promise<string | null | 'gone'>;

export type MailSenderOptions = {
  pool: LivePool;
  settings: SettingsReader;
  logger: Logger;
  links: LinkMaker;
  /** Told once a mail is given up for good (the audit log records it). */
  onGivenUp?: (mail: ClaimedMail, error: string) => Promise<void>;
  /** How often the outbox is looked at besides the wake-ups after a mail is queued. */
  intervalMs?: number;
  /** Attempts before a mail is given up; the delay doubles from `retryBaseMs` up to 10 minutes. */
  maxAttempts?: number;
  retryBaseMs?: number;
  /** TLS options for the SMTP connection (tests trust their own server's certificate this way). */
  tls?: SMTPTransport.Options['tls'];
};

export type MailSender = {
  /** Looks at the outbox now (after a mail was queued), without waiting for the interval. */
  wake(): void;
  /** One round: sends what is due; resolves when done. Never throws. */
  flush(): Promise<void>;
  stop(): Promise<void>;
};

/**
 * Sends the outbox's mail, on every replica: each round claims due rows (SKIP LOCKED and a lease, so a
 * mail goes out once however many replicas run), reads the mail settings of that moment, makes each
 * link, renders and sends through Nodemailer, and settles the row. A failed send is logged and tried
 * again later with a doubling delay, then given up (logged as an error and audited); the request that
 * queued it was answered long before. While `global.send_mail` is off or the server is not configured,
 * mail waits (until it expires) instead of being tried.
 */
export function createMailSender(options: MailSenderOptions): MailSender {
  const { pool, logger } = options;
  const outbox = createMailOutbox(pool);
  const intervalMs = options.intervalMs ?? 5000;
  const maxAttempts = options.maxAttempts ?? 8;
  const retryBaseMs = options.retryBaseMs ?? 5000;
  let lastHold: string | null = null;

  async function round(): Promise<void> {
    if (!pool.isReady()) return;
    const expired = await outbox.expire();
    if (expired > 0) logger.warn({ event: 'mail.expired', count: expired }, 'mail expired unsent');
    const mail = await readMailSettings(options.settings, options.tls);
    const hold = !mail.enabled ? 'global.send_mail is off' : mail.problem;
    if (hold !== lastHold && hold !== null) logger.warn({ event: 'mail.held', reason: hold }, 'mail is not sent');
    lastHold = hold;
    if (hold !== null || !mail.transport || !mail.from) return;
    const claimed = await outbox.claim(10, 60_000);
    if (claimed.length === 0) return;
    const transport = nodemailer.createTransport(mail.transport);
    try {
      for (const row of claimed) {
        try {
          const link = await options.links(row, mail.pageUrl);
          if (link === 'gone') {
            await outbox.dropped(row.id, 'nothing left to link to');
            continue;
          }
          const rendered = renderMail(row.kind, row.params, link, mail.from.name);
          await transport.sendMail({ from: mail.from, to: row.recipient, ...rendered });
          await outbox.sent(row.id);
          logger.info({ event: 'mail.sent', mail_id: row.id, kind: row.kind }, 'mail sent');
        } catch (error) {
          await settleFailure(row, error);
        }
      }
    } finally {
      transport.close();
    }
  }

  async function settleFailure(row: ClaimedMail, error: unknown): Promise<void> {
    // Nodemailer's message names the server and its answer, never the password.
    const message = error instanceof Error ? error.message : String(error);
    const givenUp = row.attempts >= maxAttempts;
    const retryInMs = givenUp ? null : Math.min(600_000, retryBaseMs * 2 ** (row.attempts - 1));
    await outbox.failed(row.id, message, retryInMs).catch(() => {});
    if (givenUp) {
      logger.error(
        { event: 'mail.failed', mail_id: row.id, kind: row.kind, attempts: row.attempts, err: message },
        'mail given up after its last attempt',
      );
      await options.onGivenUp?.(row, message).catch((err: unknown) => logger.warn({ err }, 'could not record it'));
    } else {
      logger.warn(
        {
          event: 'mail.send_failed',
          mail_id: row.id,
          kind: row.kind,
          attempts: row.attempts,
          retry_in_ms: retryInMs,
          err: message,
        },
        'mail not sent; will try again',
      );
    }
  }

  // One round at a time; a flush asked for during one (mail queued meanwhile) gets one more.
  const rounds = createOutboxFlush(() =>
    round().catch((err: unknown) => logger.warn({ err }, 'mail round failed; the outbox keeps its mail')),
  );
  const flush = rounds.flush;

  const timer = setInterval(() => void flush(), intervalMs);
  timer.unref();
  return {
    wake: () => void flush(),
    flush,
    async stop() {
      clearInterval(timer);
      await rounds.stop();
    },
  };
}
