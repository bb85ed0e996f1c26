import { hasGlobalPermission } from '@orbital/access';
import {
  acceptedInvitation,
  acceptInvitationBody,
  confirmAddressBody,
  createInvitationBody,
  emailBody,
  type InvitationView,
  invitationPreview,
  invitationView,
  loginReply,
  mailRequestedReply,
  registerBody,
  resetPasswordBody,
  tokenBody,
  uuidField,
} from '@orbital/contracts';
import type { LivePool } from '@orbital/db';
import { timestampToIso } from '@orbital/db';
import { AppError } from '@orbital/errors';
import type { SettingsReader } from '@orbital/settings-client';
import { z } from 'zod';
import { defineRoute } from '../http/defineRoute.ts';
import { teamParams } from '../http/pathParams.ts';
import { publicAccess, signedIn, teamInPath } from '../http/routeAccess.ts';
import type { MailSender } from '../mail/createMailSender.ts';
import { queueMail } from '../mail/mailOutbox.ts';
import type { AccountStore, InvitationRow, LinkPurpose } from './accountStore.ts';
import { sessionOf } from './createAccessResolver.ts';
import type { LoginGate } from './createLoginGate.ts';
import type { MailRequestLimiter } from './createMailRequestLimiter.ts';
import type { SessionIssuer } from './createSessionIssuer.ts';
import type { IdentityRouteDeps } from './identityRouteDeps.ts';
import { hashPassword, verifyPassword } from './passwordHashing.ts';
import { hashSessionToken } from './sessionToken.ts';
import { assertStrongPassword } from './userRoutes.ts';

const hour = 3600 * 1000;
/** How long each mailed link works, from the moment its mail is sent. */
export const linkLifetimes = {
  verify_email: 24 * hour,
  password_reset: hour,
  invitation: 7 * 24 * hour,
  registration_exists: hour,
} as const;

export type AccountRouteDeps = IdentityRouteDeps & {
  pool: LivePool;
  accounts: AccountStore;
  settings: SettingsReader;
  loginGate: LoginGate;
  issueSession: SessionIssuer;
  mailLimiter: MailRequestLimiter;
  mail: Pick<MailSender, 'wake'>;
};

const mailSent = (message: string) => ({ status: 'mail_sent' as const, message });

/** A refused link, at the field that carried it, saying why in words a person can act on. */
const badLink = (why: 'unknown' | 'used' | 'expired', what: string) =>
  new AppError(
    'validation_failed',
    {
      unknown: `This ${what} link is not valid: use the newest link you were sent`,
      used: `This ${what} link was already used: ask for a new one if you need it`,
      expired: `This ${what} link has expired: ask for a new one`,
    }[why],
    {
      details: [
        {
          path: 'body.token',
          message: why === 'unknown' ? 'is not a valid link' : `has ${why === 'used' ? 'been used' : 'expired'}`,
        },
      ],
    },
  );

function invitationStatusOf(row: InvitationRow, now: number): InvitationView['status'] {
  if (row.accepted_at !== null) return 'accepted';
  if (row.revoked_at !== null) return 'revoked';
  return row.expires_at <= now ? 'expired' : 'pending';
}

/**
 * The flows that go through a mailed link: e-mail registration and address confirmation, password
 * reset, and team invitations. Each queues its mail in the transaction of its change (the outbox sends it
 * after commit; the request never waits for a mail server) and says so when the platform does not send
 * mail (`mail_disabled`) instead of pretending. The public requests answer the same whether or not an
 * address has an account, and are rate limited per address and per client.
 */
export function accountRoutes(deps: AccountRouteDeps) {
  const { store, accounts, settings, logger, broadcast, audit } = deps;
  const db = () => deps.pool.get();

  async function assertMailOn(what: string): Promise<void> {
    if (!((await settings.boolean('global.send_mail', false)) ?? false)) {
      throw new AppError('mail_disabled', `This platform does not send mail, so it cannot send ${what}`, {
        instructions: 'A global admin can turn on "Send mail" (global.send_mail) and configure the SMTP server.',
      });
    }
  }

  /** The link a token names, checked and used up in the caller's transaction. */
  async function useLink(
    tx: Parameters<AccountStore['findLink']>[0],
    token: string,
    purpose: LinkPurpose,
    what: string,
  ) {
    const link = await accounts.findLink(tx, hashSessionToken(token), purpose);
    if (!link) throw badLink('unknown', what);
    if (link.used_at !== null) throw badLink('used', what);
    if (link.expires_at <= deps.now()) throw badLink('expired', what);
    await accounts.useLink(tx, link.id);
    return link;
  }

  /** Mails a person a new single-use link of one purpose (its mail is named after it), queued in `tx`. */
  async function mailLink(
    tx: Parameters<AccountStore['createLink']>[0],
    user: { id: string; email: string },
    purpose: 'verify_email' | 'password_reset',
    name: string,
  ) {
    const link = await accounts.createLink(tx, user.id, purpose, new Date(deps.now() + linkLifetimes[purpose]));
    await queueMail(tx, {
      kind: purpose,
      recipient: user.email,
      params: { name },
      tokenRef: link,
      expiresInMs: linkLifetimes[purpose],
    });
  }

  const toInvitationView = (row: InvitationRow): InvitationView => ({
    id: row.id,
    team_id: row.team_id,
    email: row.email,
    role: row.role,
    status: invitationStatusOf(row, deps.now()),
    invited_by: row.invited_by ? { id: row.invited_by, name: row.inviter_name ?? '' } : null,
    created_at: timestampToIso(row.created_at),
    expires_at: timestampToIso(row.expires_at),
  });

  /** The open invitation a token names, locked, or why it cannot be accepted. */
  async function openInvitation(tx: Parameters<AccountStore['findInvitation']>[0], token: string) {
    const invitation = await accounts.findInvitation(tx, hashSessionToken(token), true);
    if (!invitation || invitation.revoked_at !== null) throw badLink('unknown', 'invitation');
    if (invitation.accepted_at !== null) throw badLink('used', 'invitation');
    if (invitation.expires_at <= deps.now()) throw badLink('expired', 'invitation');
    return invitation;
  }

  /** Marks an invitation accepted by a person and audits it, in the transaction that made them a member. */
  async function recordAcceptance(
    tx: Parameters<AccountStore['acceptInvitation']>[0],
    caller: { request: Parameters<typeof audit>[0]; identity: Parameters<typeof audit>[1] },
    invitation: { id: string; team_id: string },
    accepted: { userId: string; newAccount: boolean },
  ) {
    await accounts.acceptInvitation(tx, invitation.id, accepted.userId);
    await audit(
      caller.request,
      caller.identity,
      {
        action: 'invitation.accepted',
        target: { kind: 'invitation', id: invitation.id },
        team_id: invitation.team_id,
        details: { user_id: accepted.userId, new_account: accepted.newAccount },
      },
      tx,
    );
  }

  return [
    defineRoute({
      method: 'POST',
      url: '/api/auth/register',
      summary:
        'Register with e-mail, password and name (global.enable_email_registration): the account signs in once the mailed link confirmed the address',
      tags: ['auth'],
      access: publicAccess,
      body: registerBody,
      response: mailRequestedReply,
      successStatus: 202,
      async handler({ body, request, reply, identity }) {
        await deps.loginGate.assertEnabled();
        if (!((await settings.boolean('global.enable_email_registration', true)) ?? true)) {
          throw new AppError('registration_disabled', 'Registration by e-mail is turned off on this platform', {
            instructions: 'Ask a team admin for an invitation.',
          });
        }
        await assertMailOn('the link that confirms your address; registration needs it');
        assertStrongPassword(body.password, body.email, 'body.password');
        await deps.mailLimiter.attempt('register', body.email, request.ip, reply);
        // Hashed before anything is looked up: a known address costs the same time as a new one.
        const passwordHash = await hashPassword(body.password);
        const outcome = await db().transaction(async (tx) => {
          const existing = await store.findUserByEmail(body.email, tx);
          if (existing && existing.email_verified_at !== null) {
            // Told by mail, never in the answer: the answer is the same for every address.
            await queueMail(tx, {
              kind: 'registration_exists',
              recipient: existing.email,
              params: {},
              expiresInMs: linkLifetimes.registration_exists,
            });
            await audit(
              request,
              identity,
              { action: 'auth.registered', target: { kind: 'user', id: existing.id }, details: { outcome: 'exists' } },
              tx,
            );
            return { userId: existing.id, kind: 'exists' as const };
          }
          // An address registered but never confirmed takes the newest registration's password: the
          // confirmation asks for it, so whoever registered before cannot take over the account.
          if (existing) await store.setPassword(existing.id, passwordHash, null, tx);
          const user =
            existing ??
            (await store.createUser(
              { email: body.email, name: body.name, passwordHash, globalRole: 'global_user', emailVerified: false },
              tx,
            ));
          await mailLink(tx, user, 'verify_email', existing ? existing.name : body.name);
          const kind = existing ? ('unconfirmed_again' as const) : ('created' as const);
          await audit(
            request,
            identity,
            { action: 'auth.registered', target: { kind: 'user', id: user.id }, details: { outcome: kind } },
            tx,
          );
          return { userId: user.id, kind };
        });
        deps.mail.wake();
        logger.info(
          { event: 'auth.registered', user_id: outcome.userId, outcome: outcome.kind, address: request.ip },
          'security: registration',
        );
        return mailSent('Check your mail: follow the link in it to confirm your address, then sign in.');
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/api/auth/verify-email',
      summary:
        "Confirm an account's e-mail address with the mailed link's token (once, within 24 hours) and the password chosen at registration; signs in",
      tags: ['auth'],
      access: publicAccess,
      body: confirmAddressBody,
      response: loginReply,
      async handler({ body, request, reply, identity }) {
        await deps.loginGate.assertEnabled();
        const user = await db().transaction(async (tx) => {
          const link = await useLink(tx, body.token, 'verify_email', 'confirmation');
          const owner = await store.getUserWithHash(link.user_id, tx);
          if (!owner) throw badLink('unknown', 'confirmation');
          // The password proves the person following the link is the one who registered: a link reaching
          // someone else (or an earlier registration of the address by another) confirms nothing.
          if (!owner.password_hash || !(await verifyPassword(owner.password_hash, body.password))) {
            throw new AppError('validation_failed', 'The password is not the one chosen when registering', {
              details: [{ path: 'body.password', message: 'is not the password of this registration' }],
            });
          }
          await accounts.confirmAddress(tx, owner.id);
          await audit(request, identity, { action: 'auth.email_verified', target: { kind: 'user', id: owner.id } }, tx);
          return store.getUser(owner.id, tx);
        });
        if (!user) throw badLink('unknown', 'confirmation');
        logger.info({ event: 'auth.email_verified', user_id: user.id }, 'security: address confirmed');
        return deps.issueSession({ user, request, reply, method: 'email_confirmation' });
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/api/auth/verify-email/resend',
      summary: 'Send a new confirmation link to an address registered but not confirmed (same answer for any address)',
      tags: ['auth'],
      access: publicAccess,
      body: emailBody,
      response: mailRequestedReply,
      successStatus: 202,
      async handler({ body, request, reply }) {
        await assertMailOn('a confirmation link');
        await deps.mailLimiter.attempt('verify', body.email, request.ip, reply);
        await db().transaction(async (tx) => {
          const user = await store.findUserByEmail(body.email, tx);
          if (!user || user.email_verified_at !== null || user.disabled_at !== null) return;
          await mailLink(tx, user, 'verify_email', user.name);
        });
        deps.mail.wake();
        return mailSent('If this address has an account waiting for confirmation, a new link is on its way.');
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/api/auth/password-reset',
      summary: 'Mail a single-use password reset link (same answer whether or not the address has an account)',
      tags: ['auth'],
      access: publicAccess,
      body: emailBody,
      response: mailRequestedReply,
      successStatus: 202,
      async handler({ body, request, reply, identity }) {
        await assertMailOn('a password reset link');
        await deps.mailLimiter.attempt('reset', body.email, request.ip, reply);
        const userId = await db().transaction(async (tx) => {
          const user = await store.findUserByEmail(body.email, tx);
          // A disabled account gets no link: it could not sign in with the new password anyway.
          if (!user || user.disabled_at !== null) return null;
          await mailLink(tx, user, 'password_reset', user.name);
          await audit(
            request,
            identity,
            { action: 'auth.password_reset_requested', target: { kind: 'user', id: user.id } },
            tx,
          );
          return user.id;
        });
        deps.mail.wake();
        logger.info(
          { event: 'auth.password_reset_requested', user_id: userId, address: request.ip },
          'security: password reset asked for',
        );
        return mailSent(
          'If this address has an account, a link to choose a new password is on its way. It works for one hour.',
        );
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/api/auth/password-reset/confirm',
      summary:
        "Set a new password with the mailed link's token (once, within an hour); every session of the account ends",
      tags: ['auth'],
      access: publicAccess,
      body: resetPasswordBody,
      response: z.object({ reset: z.literal(true), email: z.string() }),
      async handler({ body, request, identity }) {
        const user = await db().transaction(async (tx) => {
          const link = await useLink(tx, body.token, 'password_reset', 'password reset');
          const owner = await store.getUser(link.user_id, tx);
          if (!owner || owner.disabled_at !== null) throw badLink('unknown', 'password reset');
          assertStrongPassword(body.password, owner.email, 'body.password');
          await store.setPassword(owner.id, await hashPassword(body.password), null, tx);
          // Following the link proved the address is theirs.
          await accounts.confirmAddress(tx, owner.id);
          await audit(request, identity, { action: 'auth.password_reset', target: { kind: 'user', id: owner.id } }, tx);
          return owner;
        });
        await broadcast.invalidate({ kind: 'user', user_id: user.id });
        logger.info(
          { event: 'auth.password_reset', user_id: user.id, address: request.ip },
          'security: password reset with a mailed link',
        );
        return { reset: true as const, email: user.email };
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/api/teams/:teamId/invitations',
      summary: 'Invite an e-mail address to the team (team admins): a mailed link lets the person join',
      tags: ['teams'],
      access: teamInPath('team.manage_members'),
      params: teamParams,
      body: createInvitationBody,
      response: invitationView,
      successStatus: 201,
      async handler({ params, body, request, identity }) {
        const inviter = sessionOf(request).user;
        await assertMailOn('an invitation');
        const team = await store.getTeam(params.teamId);
        if (!team) throw new AppError('not_found', 'No such team');
        const member = await store.findUserByEmail(body.email);
        if (member && (await store.getMember(params.teamId, member.id))) {
          throw new AppError('conflict', 'This address already belongs to a member of the team', {
            details: [{ path: 'body.email', message: 'is already a member' }],
          });
        }
        const row = await db().transaction(async (tx) => {
          const id = await accounts.createInvitation(tx, {
            teamId: team.id,
            email: body.email,
            role: body.role,
            invitedBy: inviter.id,
            expiresAt: new Date(deps.now() + linkLifetimes.invitation),
          });
          await queueMail(tx, {
            kind: 'invitation',
            recipient: body.email,
            params: { team: team.name, inviter: inviter.name, role: body.role },
            tokenRef: id,
            expiresInMs: linkLifetimes.invitation,
          });
          await audit(
            request,
            identity,
            {
              action: 'invitation.created',
              target: { kind: 'invitation', id },
              team_id: team.id,
              details: { email: body.email, role: body.role },
            },
            tx,
          );
          return accounts.getInvitation(tx, id);
        });
        if (!row) throw new AppError('internal', 'The invitation vanished after it was made');
        deps.mail.wake();
        logger.info(
          { event: 'identity.invitation_created', invitation_id: row.id, team_id: team.id, by: inviter.id },
          'invitation sent',
        );
        return toInvitationView(row);
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/api/teams/:teamId/invitations',
      summary: "The team's invitations, newest first, with their state (team admins)",
      tags: ['teams'],
      access: teamInPath('team.manage_members'),
      params: teamParams,
      response: z.array(invitationView),
      handler: async ({ params }) => (await accounts.listInvitations(params.teamId)).map(toInvitationView),
    }),
    defineRoute({
      method: 'DELETE',
      url: '/api/teams/:teamId/invitations/:invitationId',
      summary: 'Withdraw an invitation that was not accepted yet: its link stops working',
      tags: ['teams'],
      access: teamInPath('team.manage_members'),
      params: teamParams.extend({ invitationId: uuidField({ error: 'must be an invitation id (UUID)' }) }),
      response: z.object({ revoked: z.literal(true) }),
      async handler({ params, request, identity }) {
        if (!(await accounts.revokeInvitation(params.teamId, params.invitationId))) {
          throw new AppError('not_found', 'No open invitation with this id in the team');
        }
        await audit(request, identity, {
          action: 'invitation.revoked',
          target: { kind: 'invitation', id: params.invitationId },
          team_id: params.teamId,
        });
        logger.info(
          { event: 'identity.invitation_revoked', invitation_id: params.invitationId, by: sessionOf(request).user.id },
          'invitation withdrawn',
        );
        return { revoked: true as const };
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/api/invitations/preview',
      summary: "What an invitation's link invites to (team, address, role), before it is accepted",
      tags: ['teams'],
      access: publicAccess,
      body: tokenBody,
      response: invitationPreview,
      async handler({ body }) {
        const invitation = await openInvitation(db(), body.token);
        return {
          team_name: invitation.team_name,
          email: invitation.email,
          role: invitation.role,
          expires_at: timestampToIso(invitation.expires_at),
          account_exists: (await store.findUserByEmail(invitation.email)) !== null,
        };
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/api/invitations/accept',
      summary:
        'Accept an invitation as a new person: the name and password make the account (its address confirmed by the link), which joins the team and is signed in',
      tags: ['teams'],
      access: publicAccess,
      body: acceptInvitationBody,
      response: loginReply,
      async handler({ body, request, reply, identity }) {
        await deps.loginGate.assertEnabled();
        const passwordHash = await hashPassword(body.password);
        const user = await db().transaction(async (tx) => {
          const invitation = await openInvitation(tx, body.token);
          if (await store.findUserByEmail(invitation.email, tx)) {
            throw new AppError('conflict', 'This address already has an account: sign in, then accept the invitation', {
              instructions: 'Sign in and open the link again; the invitation page then joins you to the team.',
            });
          }
          assertStrongPassword(body.password, invitation.email, 'body.password');
          const made = await store.createUser(
            { email: invitation.email, name: body.name, passwordHash, globalRole: 'global_user', emailVerified: true },
            tx,
          );
          await store.addMember(invitation.team_id, made.id, invitation.role, tx);
          await recordAcceptance(tx, { request, identity }, invitation, { userId: made.id, newAccount: true });
          return made;
        });
        logger.info(
          { event: 'identity.invitation_accepted', user_id: user.id, new_account: true },
          'invitation accepted',
        );
        return deps.issueSession({ user, request, reply, method: 'invitation' });
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/api/users/me/invitations/accept',
      summary:
        'Accept an invitation as the signed-in person (after signing in with a password or single sign-on); the invitation must be for their address',
      tags: ['teams'],
      access: signedIn,
      body: tokenBody,
      response: acceptedInvitation,
      async handler({ body, request, identity }) {
        const me = sessionOf(request).user;
        const accepted = await db().transaction(async (tx) => {
          const invitation = await openInvitation(tx, body.token);
          if (invitation.email.toLowerCase() !== me.email.toLowerCase()) {
            throw new AppError('forbidden', `This invitation is for another address; sign in as ${invitation.email}`);
          }
          const existing = await store.getMember(invitation.team_id, me.id, tx);
          if (!existing) await store.addMember(invitation.team_id, me.id, invitation.role, tx);
          await recordAcceptance(tx, { request, identity }, invitation, { userId: me.id, newAccount: false });
          return invitation;
        });
        // The new membership holds from the next request on every replica.
        await broadcast.invalidate({ kind: 'user', user_id: me.id });
        logger.info(
          {
            event: 'identity.invitation_accepted',
            user_id: me.id,
            team_id: accepted.team_id,
            admin: hasGlobalPermission(identity, 'teams.manage'),
          },
          'invitation accepted',
        );
        return { team_id: accepted.team_id, team_name: accepted.team_name, role: accepted.role };
      },
    }),
  ];
}
