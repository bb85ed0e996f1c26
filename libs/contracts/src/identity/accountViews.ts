import { z } from 'zod';
import { teamRole } from '../identity.ts';
import { uuidField } from '../ids.ts';
import { isoTimestamp } from '../isoTimestamp.ts';
import { emailField, newPassword } from './identityViews.ts';

/**
 * HTTP shapes of the account flows that go through a mailed link: registration and address
 * confirmation, password reset, and team invitations. A link's token travels in the URL fragment of the
 * console page the mail leads to, and the page posts it here.
 */
const personName = z.string().trim().min(1, 'give your name').max(200);
/** A mailed link's token: 256 random bits, base64url. */
export const linkToken = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9_-]{43}$/, 'is not a link this platform sent');

export const registerBody = z.object({ email: emailField, password: newPassword, name: personName }).strict();
export type RegisterBody = z.input<typeof registerBody>;

/** What every mail-sending public request answers, whether or not the address has an account. */
export const mailRequestedReply = z.object({
  status: z.literal('mail_sent'),
  message: z.string(),
});
export type MailRequestedReply = z.infer<typeof mailRequestedReply>;

export const emailBody = z.object({ email: emailField }).strict();
export const tokenBody = z.object({ token: linkToken }).strict();
/** Confirming an address: the link's token and the password chosen when registering (it signs in). */
export const confirmAddressBody = z
  .object({ token: linkToken, password: z.string().min(1, 'give the password you registered with').max(1024) })
  .strict();
export const resetPasswordBody = z.object({ token: linkToken, password: newPassword }).strict();
export type ResetPasswordBody = z.input<typeof resetPasswordBody>;

export const invitationStatus = z.enum(['pending', 'accepted', 'revoked', 'expired']);
/** Invitations, teams and users are gateway-api's rows, keyed by UUIDs. */
const uuid = uuidField();

export const invitationView = z.object({
  id: uuid,
  team_id: uuid,
  email: z.string(),
  role: teamRole,
  status: invitationStatus,
  invited_by: z.object({ id: uuid, name: z.string() }).nullable(),
  created_at: isoTimestamp,
  expires_at: isoTimestamp,
});
export type InvitationView = z.infer<typeof invitationView>;

export const createInvitationBody = z.object({ email: emailField, role: teamRole.default('team_user') }).strict();
export type CreateInvitationBody = z.input<typeof createInvitationBody>;

/** What an invitation's page shows before it is accepted. */
export const invitationPreview = z.object({
  team_name: z.string(),
  email: z.string(),
  role: teamRole,
  expires_at: isoTimestamp,
  /** Whether the address already has an account (then: sign in and accept, instead of a new password). */
  account_exists: z.boolean(),
});
export type InvitationPreview = z.infer<typeof invitationPreview>;

/** Accepting as a new person: a name and a password make the account, which the invitation confirms. */
export const acceptInvitationBody = z.object({ token: linkToken, name: personName, password: newPassword }).strict();
export type AcceptInvitationBody = z.input<typeof acceptInvitationBody>;

export const acceptedInvitation = z.object({ team_id: uuid, team_name: z.string(), role: teamRole });
