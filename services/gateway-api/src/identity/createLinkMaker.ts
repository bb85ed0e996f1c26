import type { LinkMaker } from '../mail/createMailSender.ts';
import { linkLifetimes } from './accountRoutes.ts';
import type { AccountStore } from './accountStore.ts';
import { createSessionToken, hashSessionToken } from './sessionToken.ts';

/** The console page each mail leads to, under `global.page_url`. */
const pages = {
  verify_email: '/verify-email',
  password_reset: '/reset-password',
  invitation: '/invitation',
  registration_exists: '/forgot-password',
  satellite_offline: '/satellites',
} as const;

/**
 * Makes the link of a mail as it is sent: a fresh token (256 random bits) whose SHA-256 replaces the
 * link's previous one, in the fragment of the console page (a fragment never reaches a server log or a
 * Referer header). A link used or withdrawn since the mail was queued is `gone`.
 */
export function createLinkMaker(deps: { accounts: AccountStore; now: () => number }): LinkMaker {
  return async (mail, pageUrl) => {
    const page = `${pageUrl}${pages[mail.kind]}`;
    if (mail.kind === 'registration_exists') return page;
    if (mail.kind === 'satellite_offline') return `${page}/${encodeURIComponent(mail.params.satellite_id ?? '')}`;
    if (!mail.token_ref) return 'gone';
    const token = createSessionToken();
    const hash = hashSessionToken(token);
    const ready =
      mail.kind === 'invitation'
        ? await deps.accounts.setInvitationToken(mail.token_ref, hash)
        : await deps.accounts.setLinkToken(mail.token_ref, hash, new Date(deps.now() + linkLifetimes[mail.kind]));
    return ready ? `${page}#token=${token}` : 'gone';
  };
}
