import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';

export type ReceivedMail = { from: string; to: string[]; raw: string; subject: string; text: string };

/** Quoted-printable as Nodemailer writes long lines: soft breaks joined, `=XX` decoded. */
function decodeQuotedPrintable(text: string): string {
  return Buffer.from(
    text
      .replace(/=\r?\n/g, '')
      .replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))),
    'latin1',
  ).toString('utf8');
}

/**
 * A real SMTP server for the tests (the `smtp-server` package, as mail servers speak it), keeping what it
 * receives in memory. `refuse` makes it answer every recipient with a permanent 550, as a server that
 * will not take the mail does.
 */
export async function startMailServer(options: { refuse?: boolean; server?: SMTPServerOptions } = {}) {
  const received: ReceivedMail[] = [];
  let refuse = options.refuse ?? false;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(_address, _session, callback) {
      if (refuse) {
        const error = Object.assign(new Error('mailbox unavailable'), { responseCode: 550 });
        callback(error);
        return;
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const [head = '', ...rest] = raw.split(/\r?\n\r?\n/);
        const subject = /^Subject: (.*)$/m.exec(head)?.[1] ?? '';
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
          subject,
          text: decodeQuotedPrintable(rest.join('\n\n')),
        });
        callback();
      });
    },
    ...options.server,
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    received,
    setRefusing(value: boolean) {
      refuse = value;
    },
    /** The mails sent to one address so far. */
    to: (address: string) => received.filter((m) => m.to.includes(address)),
    /** Waits (generously) until `count` mails reached the address, and returns them. */
    async waitFor(address: string, count = 1, timeoutMs = 20_000): Promise<ReceivedMail[]> {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const mails = received.filter((m) => m.to.includes(address));
        if (mails.length >= count) return mails;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(
        `${count} mail(s) to ${address} did not arrive; got ${received.filter((m) => m.to.includes(address)).length}`,
      );
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
export type MailServer = Awaited<ReturnType<typeof startMailServer>>;

/** The token in a mail's link (`...#token=<token>`) and the page it leads to. */
export function linkIn(mail: ReceivedMail): { url: string; page: string; token: string } {
  const match = /(https?:\/\/[^\s"<]+)#token=([A-Za-z0-9_-]{43})/.exec(mail.text);
  if (!match?.[1] || !match[2]) throw new Error(`no link in the mail: ${mail.text}`);
  return { url: `${match[1]}#token=${match[2]}`, page: match[1], token: match[2] };
}
