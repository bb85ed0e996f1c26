import type { MailKind } from './mailOutbox.ts';

export type RenderedMail = { subject: string; text: string; html: string };

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

/**
 * The text of each mail, plain and HTML, in the platform's words. `link` is the console address the mail
 * leads to (built from `global.page_url`, its token in the fragment so it never reaches a server log
 * or a Referer header); every value from a person (a name, a team) is escaped in the HTML.
 */
export function renderMail(
  kind: MailKind,
  params: Record<string, string>,
  link: string | null,
  platform: string,
): RenderedMail {
  const paragraphs = (() => {
    switch (kind) {
      case 'verify_email':
        return {
          subject: `Confirm your e-mail address for ${platform}`,
          lines: [
            `Hello ${params.name ?? ''},`,
            `someone, hopefully you, registered an account on ${platform} with this address. Confirm it to sign in:`,
            'LINK',
            'The link works once, for 24 hours. If you did not register, ignore this mail.',
          ],
        };
      case 'password_reset':
        return {
          subject: `Reset your ${platform} password`,
          lines: [
            `Hello ${params.name ?? ''},`,
            'someone, hopefully you, asked to reset the password of your account. Choose a new one here:',
            'LINK',
            'The link works once, for one hour; your other sessions end when you use it. If you did not ask, ignore this mail: your password stays as it is.',
          ],
        };
      case 'invitation':
        return {
          subject: `${params.inviter ?? 'Someone'} invites you to ${params.team ?? 'a team'} on ${platform}`,
          lines: [
            'Hello,',
            `${params.inviter ?? 'A team admin'} invites you to join the team "${params.team ?? ''}" on ${platform} as ${params.role === 'team_admin' ? 'a team admin' : 'a member'}.`,
            'Accept, with a new password or by signing in with an account you have:',
            'LINK',
            'The invitation works once, for 7 days.',
          ],
        };
      case 'registration_exists':
        return {
          subject: `Your ${platform} account`,
          lines: [
            'Hello,',
            `someone, hopefully you, tried to register on ${platform} with this address, which already has an account. Sign in, or reset the password if you forgot it:`,
            'LINK',
            'If it was not you, ignore this mail.',
          ],
        };
      case 'satellite_offline':
        return {
          subject: `Satellite ${params.satellite ?? ''} is offline on ${platform}`,
          lines: [
            'Hello,',
            `the ${params.scope === 'team' ? `satellite of the team "${params.team ?? ''}"` : 'global satellite'} "${params.satellite ?? ''}" stopped sending heartbeats: the last one arrived at ${params.last_heartbeat_at ?? ''}. The MCP servers it runs cannot be reached through it until it is back.`,
            'Its page in the console:',
            'LINK',
            'You get this mail as a global admin; you get another only if it goes offline again after coming back.',
          ],
        };
    }
  })();
  const text = paragraphs.lines.map((line) => (line === 'LINK' ? (link ?? '') : line)).join('\n\n');
  const html = paragraphs.lines
    .map((line) =>
      line === 'LINK'
        ? `<p><a href="${escapeHtml(link ?? '')}">${escapeHtml(link ?? '')}</a></p>`
        : `<p>${escapeHtml(line)}</p>`,
    )
    .join('\n');
  return { subject: paragraphs.subject, text: `${text}\n`, html };
}
