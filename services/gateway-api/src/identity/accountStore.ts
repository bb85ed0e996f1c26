import { invitationView, type TeamRole } from '@orbital/contracts';
import { type CommonQueryMethods, type LivePool, sql } from '@orbital/db';
import { z } from 'zod';

export type LinkPurpose = 'verify_email' | 'password_reset';

const linkRow = z.object({
  id: z.string(),
  purpose: z.enum(['verify_email', 'password_reset']),
  user_id: z.string(),
  expires_at: z.number(),
  used_at: z.number().nullable(),
});

/**
 * An invitation as stored: the contract's view of whom it invites where, with its team's and inviter's
 * names and its times as slonik reads them (epoch milliseconds); the routes derive the view's status.
 */
const invitationRow = invitationView.pick({ id: true, team_id: true, email: true, role: true }).extend({
  team_name: z.string(),
  invited_by: z.string().nullable(),
  inviter_name: z.string().nullable(),
  created_at: z.number(),
  expires_at: z.number(),
  accepted_at: z.number().nullable(),
  revoked_at: z.number().nullable(),
});
export type InvitationRow = z.infer<typeof invitationRow>;

const invitationColumns = sql.fragment`
  i.id, i.team_id, t.name AS team_name, i.email, i.role, i.invited_by, u.name AS inviter_name, i.created_at,
  i.expires_at, i.accepted_at, i.revoked_at`;
const invitationFrom = sql.fragment`
  identity.invitations i JOIN identity.teams t ON t.id = i.team_id LEFT JOIN identity.users u ON u.id = i.invited_by`;

/**
 * The rows behind mailed links: account links (address confirmation, password reset) and team
 * invitations. A link's token is set when its mail is sent (`setLinkToken`, `setInvitationToken`) and
 * found by its SHA-256 only.
 */
export function createAccountStore(pool: LivePool) {
  const db = () => pool.get();
  return {
    /** A new link of `purpose` for the user, replacing (using up) any earlier one not used yet. */
    async createLink(tx: CommonQueryMethods, userId: string, purpose: LinkPurpose, expiresAt: Date): Promise<string> {
      await tx.query(sql.unsafe`
        UPDATE identity.account_tokens SET used_at = now()
        WHERE user_id = ${userId} AND purpose = ${purpose} AND used_at IS NULL`);
      return tx.oneFirst(sql.type(z.object({ id: z.string() }))`
        INSERT INTO identity.account_tokens (purpose, user_id, expires_at)
        VALUES (${purpose}, ${userId}, ${expiresAt.toISOString()}::timestamptz) RETURNING id`);
    },

    /** Gives a link its token (the mail is being sent) unless it was used meanwhile; false then. */
    async setLinkToken(id: string, tokenHash: Buffer, expiresAt: Date): Promise<boolean> {
      const result = await db().query(sql.unsafe`
        UPDATE identity.account_tokens SET token_hash = ${sql.binary(tokenHash)},
          expires_at = ${expiresAt.toISOString()}::timestamptz
        WHERE id = ${id} AND used_at IS NULL`);
      return result.rowCount > 0;
    },

    /** The link a token names, locked for the caller's transaction. */
    async findLink(tx: CommonQueryMethods, tokenHash: Buffer, purpose: LinkPurpose) {
      return tx.maybeOne(sql.type(linkRow)`
        SELECT id, purpose, user_id, expires_at, used_at FROM identity.account_tokens
        WHERE token_hash = ${sql.binary(tokenHash)} AND purpose = ${purpose} FOR UPDATE`);
    },

    async useLink(tx: CommonQueryMethods, id: string): Promise<void> {
      await tx.query(sql.unsafe`UPDATE identity.account_tokens SET used_at = now() WHERE id = ${id}`);
    },

    async confirmAddress(tx: CommonQueryMethods, userId: string): Promise<void> {
      await tx.query(sql.unsafe`
        UPDATE identity.users SET email_verified_at = coalesce(email_verified_at, now()), updated_at = now()
        WHERE id = ${userId}`);
    },

    /** A new invitation of the address to the team, replacing an open one of the same address. */
    async createInvitation(
      tx: CommonQueryMethods,
      input: { teamId: string; email: string; role: TeamRole; invitedBy: string | null; expiresAt: Date },
    ): Promise<string> {
      await tx.query(sql.unsafe`
        UPDATE identity.invitations SET revoked_at = now()
        WHERE team_id = ${input.teamId} AND lower(email) = lower(${input.email})
          AND accepted_at IS NULL AND revoked_at IS NULL`);
      return tx.oneFirst(sql.type(z.object({ id: z.string() }))`
        INSERT INTO identity.invitations (team_id, email, role, invited_by, expires_at)
        VALUES (${input.teamId}, ${input.email}, ${input.role}, ${input.invitedBy},
                ${input.expiresAt.toISOString()}::timestamptz)
        RETURNING id`);
    },

    async getInvitation(db2: CommonQueryMethods, id: string): Promise<InvitationRow | null> {
      return db2.maybeOne(
        sql.type(invitationRow)`SELECT ${invitationColumns} FROM ${invitationFrom} WHERE i.id = ${id}`,
      );
    },

    async listInvitations(teamId: string): Promise<readonly InvitationRow[]> {
      return db().any(sql.type(invitationRow)`
        SELECT ${invitationColumns} FROM ${invitationFrom} WHERE i.team_id = ${teamId}
        ORDER BY i.created_at DESC LIMIT 200`);
    },

    async revokeInvitation(teamId: string, id: string): Promise<boolean> {
      const result = await db().query(sql.unsafe`
        UPDATE identity.invitations SET revoked_at = now()
        WHERE id = ${id} AND team_id = ${teamId} AND accepted_at IS NULL AND revoked_at IS NULL`);
      return result.rowCount > 0;
    },

    /** Gives an open invitation its token (its mail is being sent); false once accepted or withdrawn. */
    async setInvitationToken(id: string, tokenHash: Buffer): Promise<boolean> {
      const result = await db().query(sql.unsafe`
        UPDATE identity.invitations SET token_hash = ${sql.binary(tokenHash)}
        WHERE id = ${id} AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > now()`);
      return result.rowCount > 0;
    },

    /** The invitation a token names, locked for the caller's transaction when `lock`. */
    async findInvitation(tx: CommonQueryMethods, tokenHash: Buffer, lock: boolean): Promise<InvitationRow | null> {
      return tx.maybeOne(sql.type(invitationRow)`
        SELECT ${invitationColumns} FROM ${invitationFrom}
        WHERE i.token_hash = ${sql.binary(tokenHash)} ${lock ? sql.fragment`FOR UPDATE OF i` : sql.fragment``}`);
    },

    async acceptInvitation(tx: CommonQueryMethods, id: string, userId: string): Promise<void> {
      await tx.query(sql.unsafe`
        UPDATE identity.invitations SET accepted_at = now(), accepted_by = ${userId} WHERE id = ${id}`);
    },
  };
}
export type AccountStore = ReturnType<typeof createAccountStore>;
