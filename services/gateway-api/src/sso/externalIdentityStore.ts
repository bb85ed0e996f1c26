import type { AuditRecord } from '@orbital/audit';
import { accountSummary, type GlobalRole, type TeamRole, teamRole } from '@orbital/contracts';
import { type DatabaseTransactionConnection, type LivePool, sql } from '@orbital/db';
import { z } from 'zod';
import type { ExternalAccount } from './externalAccount.ts';
import type { MappedTeams } from './mapClaims.ts';
import { SignInFailure } from './signInFailure.ts';

/** The account a sign-in found or made: its summary, and (epoch milliseconds) whether it may sign in. */
const signedInUser = accountSummary.extend({
  email_verified_at: z.number().nullable(),
  disabled_at: z.number().nullable(),
});
export type SignedInUser = z.infer<typeof signedInUser>;

export type SignInOutcome = {
  user: SignedInUser;
  /** `created`: a new user; `linked`: the account joined an existing user by its verified address. */
  how: 'signed_in' | 'linked' | 'created';
  /** The role or a membership changed: cached sessions of the user must go. */
  accessChanged: boolean;
  /** Team slugs the mapping names that do not exist (logged: an administrator's typo). */
  unknownTeams: string[];
  /** A mapped demotion refused because it would leave the platform without a global admin. */
  keptLastAdmin: boolean;
};

export type AccessMapping = { globalRole: GlobalRole | null; teams: MappedTeams | null };

/** Records an audit entry of the sign-in in its transaction (the user as the actor). */
export type SignInAudit = (
  tx: DatabaseTransactionConnection,
  user: SignedInUser,
  entry: Pick<AuditRecord, 'action' | 'target' | 'team_id' | 'details'>,
) => Promise<void>;

const userColumns = sql.fragment`u.id, u.email, u.name, u.global_role, u.email_verified_at, u.disabled_at`;

/**
 * Outside accounts and the users they are (`identity.external_identities`). One transaction per sign-in,
 * under an advisory lock of the account, so two first sign-ins of one account at once create one user.
 */
export function createExternalIdentityStore(pool: LivePool) {
  async function findOrCreate(
    tx: DatabaseTransactionConnection,
    account: ExternalAccount,
    audit: SignInAudit,
  ): Promise<{ user: SignedInUser; how: SignInOutcome['how'] }> {
    const key = sql.fragment`provider = ${account.provider} AND issuer = ${account.issuer} AND subject = ${account.subject}`;
    const linked = await tx.maybeOne(sql.type(signedInUser)`
      SELECT ${userColumns} FROM identity.external_identities e JOIN identity.users u ON u.id = e.user_id
      WHERE e.${key} AND u.deleted_at IS NULL`);
    if (linked) {
      await tx.query(sql.unsafe`
        UPDATE identity.external_identities
        SET last_sign_in_at = now(), email = coalesce(${account.emailVerified ? account.email : null}, email)
        WHERE ${key}`);
      return { user: linked, how: 'signed_in' };
    }
    // A link to a deleted account (a tombstone) lets nobody in: the account starts afresh.
    await tx.query(sql.unsafe`DELETE FROM identity.external_identities WHERE ${key}`);
    // A new account joins a user only through an address the provider vouches for: anyone can type
    // someone else's address into an account of their own.
    if (!account.email) throw new SignInFailure('email_missing');
    if (!account.emailVerified) throw new SignInFailure('email_not_verified');
    let how: SignInOutcome['how'] = 'linked';
    let user = await tx.maybeOne(sql.type(signedInUser)`
      SELECT ${userColumns} FROM identity.users u WHERE lower(u.email) = lower(${account.email}) AND u.deleted_at IS NULL`);
    if (!user) {
      // ON CONFLICT: a registration of the same address may commit in between; the account then joins it.
      user = await tx.maybeOne(sql.type(signedInUser)`
        INSERT INTO identity.users AS u (email, name, password_hash, global_role, email_verified_at)
        VALUES (${account.email}, ${account.name.slice(0, 200)}, NULL, 'global_user', now())
        ON CONFLICT ((lower(email))) DO NOTHING
        RETURNING ${userColumns}`);
      if (user) how = 'created';
      else {
        user = await tx.one(sql.type(signedInUser)`
          SELECT ${userColumns} FROM identity.users u WHERE lower(u.email) = lower(${account.email})`);
      }
    }
    if (how === 'linked' && user.email_verified_at === null) {
      // Registered but never confirmed: whoever chose that password never proved the address, which the
      // provider just did for its owner. The password goes (the owner may set one), the address counts
      // as confirmed, so a squatter's password cannot open the owner's account.
      await tx.query(sql.unsafe`
        UPDATE identity.users SET password_hash = NULL, email_verified_at = now(), updated_at = now()
        WHERE id = ${user.id}`);
    }
    await tx.query(sql.unsafe`
      INSERT INTO identity.external_identities (provider, issuer, subject, user_id, email)
      VALUES (${account.provider}, ${account.issuer}, ${account.subject}, ${user.id}, ${account.email})`);
    const target = { kind: 'user', id: user.id };
    const details = { provider: account.provider, issuer: account.issuer };
    if (how === 'created') await audit(tx, user, { action: 'user.created', target, details });
    else await audit(tx, user, { action: 'auth.account_linked', target, details });
    return { user, how };
  }

  /** Sets the mapped global role; never demotes the last global admin (nobody could then manage the platform). */
  async function applyRole(
    tx: DatabaseTransactionConnection,
    user: SignedInUser,
    role: GlobalRole,
    audit: SignInAudit,
  ) {
    if (user.global_role === role) return { changed: false, keptLastAdmin: false };
    if (role === 'global_user') {
      await tx.query(sql.unsafe`SELECT pg_advisory_xact_lock(hashtext('orbital.identity.global-admins'))`);
      const others = await tx.oneFirst(sql.type(z.object({ n: z.number() }))`
        SELECT count(*)::int AS n FROM identity.users
        WHERE global_role = 'global_admin' AND disabled_at IS NULL AND deleted_at IS NULL AND id <> ${user.id}`);
      if (others === 0) return { changed: false, keptLastAdmin: true };
    }
    await tx.query(
      sql.unsafe`UPDATE identity.users SET global_role = ${role}, updated_at = now() WHERE id = ${user.id}`,
    );
    user.global_role = role;
    await audit(tx, user, {
      action: 'user.updated',
      target: { kind: 'user', id: user.id },
      details: { global_role: role, by: 'oidc.role_mapping' },
    });
    return { changed: true, keptLastAdmin: false };
  }

  /** Joins, re-roles or leaves each team the mapping names; other memberships stay as they are. */
  async function applyTeams(
    tx: DatabaseTransactionConnection,
    user: SignedInUser,
    teams: MappedTeams,
    audit: SignInAudit,
  ) {
    const userId = user.id;
    if (teams.managed.length === 0) return { changed: false, unknownTeams: [] as string[] };
    const existing = await tx.any(sql.type(z.object({ id: z.string(), slug: z.string() }))`
      SELECT id, slug FROM identity.teams WHERE slug = ANY(${sql.array(teams.managed, 'text')})`);
    const unknownTeams = teams.managed.filter((slug) => !existing.some((team) => team.slug === slug));
    const current = await tx.any(sql.type(z.object({ team_id: z.string(), role: teamRole }))`
      SELECT team_id, role FROM identity.memberships
      WHERE user_id = ${userId} AND team_id = ANY(${sql.array(
        existing.map((team) => team.id),
        'uuid',
      )})`);
    let changed = false;
    for (const team of existing) {
      const want: TeamRole | undefined = teams.roles.get(team.slug);
      const has = current.find((m) => m.team_id === team.id)?.role;
      if (want === has) continue;
      changed = true;
      const action = !want ? 'team.member_removed' : !has ? 'team.member_added' : 'team.member_role_changed';
      await audit(tx, user, {
        action,
        target: { kind: 'user', id: userId },
        team_id: team.id,
        details: { role: want ?? has ?? null, by: 'oidc.team_mapping' },
      });
      if (!want) {
        await tx.query(sql.unsafe`DELETE FROM identity.memberships WHERE team_id = ${team.id} AND user_id = ${userId}`);
      } else if (!has) {
        await tx.query(sql.unsafe`
          INSERT INTO identity.memberships (team_id, user_id, role) VALUES (${team.id}, ${userId}, ${want})`);
      } else {
        await tx.query(sql.unsafe`
          UPDATE identity.memberships SET role = ${want}, updated_at = now()
          WHERE team_id = ${team.id} AND user_id = ${userId}`);
      }
    }
    return { changed, unknownTeams };
  }

  return {
    /** The user an outside account is (linked or created), with the mapped role and teams applied. */
    async signIn(account: ExternalAccount, mapping: AccessMapping, audit: SignInAudit): Promise<SignInOutcome> {
      return pool.get().transaction(async (tx) => {
        const lock = `orbital.sso:${account.provider}:${account.issuer}:${account.subject}`;
        await tx.query(sql.unsafe`SELECT pg_advisory_xact_lock(hashtext(${lock}))`);
        const { user, how } = await findOrCreate(tx, account, audit);
        // Refused before anything is applied (the session issuer would refuse too, after the mapping).
        if (user.disabled_at !== null) throw new SignInFailure('account_disabled');
        const role = mapping.globalRole
          ? await applyRole(tx, user, mapping.globalRole, audit)
          : { changed: false, keptLastAdmin: false };
        const teams = mapping.teams
          ? await applyTeams(tx, user, mapping.teams, audit)
          : { changed: false, unknownTeams: [] };
        return {
          user,
          how,
          accessChanged: role.changed || teams.changed,
          unknownTeams: teams.unknownTeams,
          keptLastAdmin: role.keptLastAdmin,
        };
      });
    },
  };
}

export type ExternalIdentityStore = ReturnType<typeof createExternalIdentityStore>;
