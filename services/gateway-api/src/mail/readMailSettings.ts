import type { SettingsReader } from '@orbital/settings-client';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';

export type MailSettings = {
  /** `global.send_mail`: whether the platform sends mail at all. */
  enabled: boolean;
  /** The console's base address (`global.page_url`), without a trailing slash: every link starts with it. */
  pageUrl: string;
  /** Nodemailer's SMTP options, from `smtp.*`; null while the server is not configured. */
  transport: SMTPTransport.Options | null;
  /** `"<smtp.from_name>" <address>`, or why there is none. */
  from: { name: string; address: string } | null;
  /** What is missing for sending, in words naming the settings (never a value). */
  problem: string | null;
};

/**
 * The mail settings as the sender uses them. `smtp.secure` says whether the connection must be
 * encrypted: on port 465 with TLS from the first byte (implicit TLS), on any other port by STARTTLS, which
 * is then required (a server that does not offer it fails the send rather than getting the mail in
 * clear). Off, the mail goes in clear without trying STARTTLS: for a relay on the same host or network.
 * Certificates are always verified (a private CA: NODE_EXTRA_CA_CERTS). The sender's address is
 * `smtp.from_email`, or `smtp.username` when that is an address.
 */
export async function readMailSettings(
  settings: SettingsReader,
  tls: SMTPTransport.Options['tls'] = {},
): Promise<MailSettings> {
  const enabled = (await settings.boolean('global.send_mail', false)) ?? false;
  const pageUrl = ((await settings.url('global.page_url'))?.href ?? 'http://localhost:3000/').replace(/\/+$/, '');
  const host = (await settings.string('smtp.host'))?.trim() ?? '';
  const port = (await settings.integer('smtp.port', 587)) ?? 587;
  const secure = (await settings.boolean('smtp.secure', true)) ?? true;
  const username = (await settings.string('smtp.username'))?.trim() ?? '';
  const password = username ? ((await settings.string('smtp.password')) ?? '') : '';
  const fromName = (await settings.string('smtp.from_name'))?.trim() || 'Orbital';
  const fromEmail = (await settings.email('smtp.from_email')) ?? (username.includes('@') ? username : '');
  const problem =
    host === ''
      ? 'smtp.host is empty'
      : fromEmail === ''
        ? 'smtp.from_email is empty (and smtp.username is not an address)'
        : null;
  return {
    enabled,
    pageUrl,
    transport:
      host === ''
        ? null
        : {
            host,
            port,
            secure: secure && port === 465,
            requireTLS: secure && port !== 465,
            ignoreTLS: !secure,
            ...(username ? { auth: { user: username, pass: password } } : {}),
            tls: { ...tls },
            // A server that hangs costs one attempt, not a stuck sender.
            connectionTimeout: 10_000,
            greetingTimeout: 10_000,
            socketTimeout: 20_000,
          },
    from: fromEmail ? { name: fromName, address: fromEmail } : null,
    problem,
  };
}
