import { type AuditRecord, recordAudit } from '@orbital/audit';
import {
  type GlobalRole,
  globalRole,
  membershipView,
  memberView,
  type TeamRole,
  teamView,
  type UserStatus,
  userView,
} from '@orbital/contracts';
import { type CommonQueryMethods, type LivePool, sql } from '@orbital/db';
import { AppError } from '@orbital/errors';
import { ForeignKeyIntegrityConstraintViolationError, UniqueIntegrityConstraintViolationError } from 'slonik';
import { z } from 'zod';

/** Timestamps as slonik parses timestamptz: epoch milliseconds. */
const millis = z.number();

/** A user as stored: the contract's view, timestamps as read, without the status the view derives from them. */
const userRow = userView.omit({ status: true }).extend({
  email_verified_at: millis.nullable(),
  disabled_at: millis.nullable(),
  last_login_at: millis.nullable(),
  created_at: millis,
});
export type UserRow = z.infer<typeof userRow>;

const userWithHashRow = userRow.extend({ password_hash: z.string().nullable() });
export type UserWithHash = z.infer<typeof userWithHashRow>;

const teamRow = teamView.extend({ created_at: millis, updated_at: millis });
export type TeamRow = z.infer<typeof teamRow>;

/** A membership as stored: the contract's view without the permissions its role gives. */
const membershipRow = membershipView.omit({ permissions: true });
export type MembershipRow = z.infer<typeof membershipRow>;

const memberRow = memberView.extend({ created_at: millis });
export type MemberRow = z.infer<typeof memberRow>;

const sessionRow = z.object({
  session_id: z.string(),
  user_id: z.string(),
  expires_at: z.number(),
  revoked_at: z.number().nullable(),
  email: z.string(),
  name: z.string(),
  global_role: globalRole,
});

export type StoredSession = {
  sessionId: string;
  userId: string;
  expiresAt: number;
  revokedAt: number | null;
  user: { id: string; email: string; name: string; globalRole: GlobalRole };
  memberships: MembershipRow[];
};

const userColumns = sql.fragment`id, email, name, global_role, password_hash IS NOT NULL AS has_password,
  email_verified_at, disabled_at, last_login_at, created_at`;
/** Accounts that exist: a deleted account is a tombstone, found by no query but those of attribution. */
const notDeleted = sql.fragment`deleted_at IS NULL`;
const teamColumns = sql.fragment`id, slug, name, created_at, updated_at`;

const statusCondition: Record<UserStatus, ReturnType<typeof sql.fragment>> = {
  active: sql.fragment`disabled_at IS NULL AND email_verified_at IS NOT NULL`,
  unverified: sql.fragment`disabled_at IS NULL AND email_verified_at IS NULL`,
  disabled: sql.fragment`disabled_at IS NOT NULL`,
};

/** Database errors the caller can act on, as the platform's codes; everything else stays internal. */
function translate(error: unknown, messages: { unique?: string; foreignKey?: string }): never {
  if (error instanceof UniqueIntegrityConstraintViolationError && messages.unique) {
    throw new AppError('conflict', messages.unique, { cause: error });
  }
  if (error instanceof ForeignKeyIntegrityConstraintViolationError && messages.foreignKey) {
    throw new AppError('not_found', messages.foreignKey, { cause: error });
  }
  throw error;
}

async function membershipsOf(db: CommonQueryMethods, userId: string): Promise<MembershipRow[]> {
  const rows = await db.any(sql.type(membershipRow)`
    SELECT m.team_id, t.slug AS team_slug, t.name AS team_name, m.role
    FROM identity.memberships m JOIN identity.teams t ON t.id = m.team_id
    WHERE m.user_id = ${userId}
    ORDER BY t.slug`);
  return [...rows];
}

/**
 * The typed queries of the identity schema. Every method reaches the pool through the live getter, or
 * one transaction's connection inside `inTransaction`.
 */
export function createIdentityStore(pool: LivePool) {
  return identityStoreOn(() => pool.get());
}

function identityStoreOn(db: () => CommonQueryMethods) {
  const store = queriesOn(db);
  return {
    ...store,
    /**
     * Runs changes with a store whose queries all belong to one transaction, so a change and its audit
     * entry (`audit`) commit together or not at all.
     */
    inTransaction<T>(run: (tx: typeof store) => Promise<T>): Promise<T> {
      return db().transaction((tx) => run(queriesOn(() => tx)));
    },
  };
}

function queriesOn(db: () => CommonQueryMethods) {
  return {
    /** Records an audit entry on this store's connection: in its transaction inside `inTransaction`. */
    audit: (record: AuditRecord) => recordAudit(db(), record),

    async findUserByEmail(email: string, on?: CommonQueryMethods) {
      return (on ?? db()).maybeOne(sql.type(userWithHashRow)`
        SELECT ${userColumns}, password_hash FROM identity.users WHERE lower(email) = lower(${email}) AND ${notDeleted}`);
    },

    async getUser(userId: string, on?: CommonQueryMethods): Promise<UserRow | null> {
      return (on ?? db()).maybeOne(
        sql.type(userRow)`SELECT ${userColumns} FROM identity.users WHERE id = ${userId} AND ${notDeleted}`,
      );
    },

    async getUserWithHash(userId: string, on?: CommonQueryMethods) {
      return (on ?? db()).maybeOne(sql.type(userWithHashRow)`
        SELECT ${userColumns}, password_hash FROM identity.users WHERE id = ${userId} AND ${notDeleted}`);
    },

    /**
     * A page of accounts, by address: `q` matches anywhere in the address or the name, whatever the case
     * (its LIKE wildcards are taken literally); `status` keeps one state.
     */
    async listUsers(query: {
      q?: string | undefined;
      status?: UserStatus | undefined;
      limit: number;
      offset: number;
    }): Promise<{ items: readonly UserRow[]; total: number }> {
      const conditions = [notDeleted];
      if (query.q) {
        const pattern = `%${query.q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
        conditions.push(sql.fragment`(lower(email) LIKE ${pattern} OR lower(name) LIKE ${pattern})`);
      }
      if (query.status) conditions.push(statusCondition[query.status]);
      const where = sql.join(conditions, sql.fragment` AND `);
      const total = await db().oneFirst(sql.type(z.object({ n: z.number() }))`
        SELECT count(*)::int AS n FROM identity.users WHERE ${where}`);
      const items = await db().any(sql.type(userRow)`
        SELECT ${userColumns} FROM identity.users WHERE ${where}
        ORDER BY lower(email), id LIMIT ${query.limit} OFFSET ${query.offset}`);
      return { items, total };
    },

    async createUser(
      input: {
        email: string;
        name: string;
        /** Null for an account that signs in only with single sign-on. */
        passwordHash: string | null;
        globalRole: GlobalRole;
        /** Whether the address is known to be the person's (created by an admin, invited, or from a provider). */
        emailVerified: boolean;
      },
      on?: CommonQueryMethods,
    ): Promise<UserRow> {
      try {
        return await (on ?? db()).one(sql.type(userRow)`
          INSERT INTO identity.users (email, name, password_hash, global_role, email_verified_at)
          VALUES (${input.email}, ${input.name}, ${input.passwordHash}, ${input.globalRole},
                  ${input.emailVerified ? sql.fragment`now()` : null})
          RETURNING ${userColumns}`);
      } catch (error) {
        translate(error, { unique: 'A user with this e-mail address already exists' });
      }
    },

    /**
     * Creates the first global admin unless a global admin already exists. The transaction-scoped
     * advisory lock makes replicas starting together (or a start racing a setup) create it once.
     */
    async createFirstAdmin(input: {
      email: string;
      name: string;
      passwordHash: string;
    }): Promise<'created' | 'exists'> {
      return db().transaction(async (tx) => {
        await tx.query(sql.unsafe`SELECT pg_advisory_xact_lock(hashtext('orbital.identity.first-admin'))`);
        const existing = await tx.maybeOne(sql.type(z.object({ id: z.string() }))`
          SELECT id FROM identity.users
          WHERE ${notDeleted} AND (global_role = 'global_admin' OR lower(email) = lower(${input.email})) LIMIT 1`);
        if (existing) return 'exists';
        await tx.query(sql.unsafe`
          INSERT INTO identity.users (email, name, password_hash, global_role, email_verified_at)
          VALUES (${input.email}, ${input.name}, ${input.passwordHash}, 'global_admin', now())`);
        return 'created';
      });
    },

    /** The addresses of global admins who can act now (not disabled, not deleted): who is told of outages. */
    async activeGlobalAdminAddresses(on?: CommonQueryMethods): Promise<ReadonlyArray<{ id: string; email: string }>> {
      return (on ?? db()).any(sql.type(z.object({ id: z.string(), email: z.string() }))`
        SELECT id, email FROM identity.users
        WHERE global_role = 'global_admin' AND disabled_at IS NULL AND ${notDeleted} ORDER BY created_at`);
    },

    async hasGlobalAdmin(): Promise<boolean> {
      return db().exists(sql.unsafe`SELECT 1 FROM identity.users WHERE global_role = 'global_admin' AND ${notDeleted}`);
    },

    async createSession(input: { userId: string; tokenHash: Buffer; expiresAt: Date; createdFrom: string }) {
      return db().one(sql.type(z.object({ id: z.string(), expires_at: z.number() }))`
        INSERT INTO identity.sessions (token_hash, user_id, expires_at, created_from)
        VALUES (${sql.binary(input.tokenHash)}, ${input.userId}, ${input.expiresAt.toISOString()}::timestamptz, ${input.createdFrom})
        RETURNING id, expires_at`);
    },

    async findSession(tokenHash: Buffer): Promise<StoredSession | null> {
      const row = await db().maybeOne(sql.type(sessionRow)`
        SELECT s.id AS session_id, s.user_id, s.expires_at, s.revoked_at, u.email, u.name, u.global_role
        FROM identity.sessions s JOIN identity.users u ON u.id = s.user_id
        WHERE s.token_hash = ${sql.binary(tokenHash)} AND u.disabled_at IS NULL AND u.deleted_at IS NULL`);
      if (!row) return null;
      return {
        sessionId: row.session_id,
        userId: row.user_id,
        expiresAt: row.expires_at,
        revokedAt: row.revoked_at,
        user: { id: row.user_id, email: row.email, name: row.name, globalRole: row.global_role },
        memberships: await membershipsOf(db(), row.user_id),
      };
    },

    async revokeSession(sessionId: string): Promise<void> {
      await db().query(sql.unsafe`
        UPDATE identity.sessions SET revoked_at = now() WHERE id = ${sessionId} AND revoked_at IS NULL`);
    },

    async revokeUserSessions(userId: string): Promise<number> {
      const result = await db().query(sql.unsafe`
        UPDATE identity.sessions SET revoked_at = now() WHERE user_id = ${userId} AND revoked_at IS NULL`);
      return result.rowCount;
    },

    /** Records a sign-in (shown to admins on the People page). */
    async markLoggedIn(userId: string): Promise<void> {
      await db().query(sql.unsafe`UPDATE identity.users SET last_login_at = now() WHERE id = ${userId}`);
    },

    /**
     * Changes a global admin's hold on an account: its global role, whether it is disabled, or deletes it.
     * Never leaves the platform without an active global admin (nobody else could manage it): the check
     * runs under a lock every such change takes, so two admins demoting each other cannot both pass.
     * Disabling and deleting revoke the account's sessions (the caller evicts them from every replica);
     * deleting leaves a tombstone (id and name, so what the person created stays attributed), frees the
     * address and removes memberships, tokens, links and open invitations sent to it. Null when the account
     * does not exist.
     */
    async changeAccount(
      userId: string,
      change: { globalRole?: GlobalRole | undefined; disabled?: boolean | undefined } | { delete: true },
    ): Promise<UserRow | 'deleted' | null> {
      return db().transaction(async (tx) => {
        await tx.query(sql.unsafe`SELECT pg_advisory_xact_lock(hashtext('orbital.identity.global-admins'))`);
        const current = await tx.maybeOne(sql.type(userRow)`
          SELECT ${userColumns} FROM identity.users WHERE id = ${userId} AND ${notDeleted} FOR UPDATE`);
        if (!current) return null;
        const removing = 'delete' in change;
        const staysAdmin =
          !removing &&
          (change.globalRole ?? current.global_role) === 'global_admin' &&
          !(change.disabled ?? current.disabled_at !== null);
        if (current.global_role === 'global_admin' && current.disabled_at === null && !staysAdmin) {
          const others = await tx.oneFirst(sql.type(z.object({ n: z.number() }))`
            SELECT count(*)::int AS n FROM identity.users
            WHERE global_role = 'global_admin' AND disabled_at IS NULL AND ${notDeleted} AND id <> ${userId}`);
          if (others === 0) {
            throw new AppError('conflict', 'This is the last active global admin: the platform would have none', {
              instructions: 'Make another account global_admin first.',
            });
          }
        }
        if (removing) {
          await tx.query(sql.unsafe`DELETE FROM identity.memberships WHERE user_id = ${userId}`);
          await tx.query(sql.unsafe`DELETE FROM identity.oauth_grants WHERE user_id = ${userId}`);
          await tx.query(sql.unsafe`DELETE FROM identity.oauth_authorization_codes WHERE user_id = ${userId}`);
          await tx.query(sql.unsafe`DELETE FROM identity.account_tokens WHERE user_id = ${userId}`);
          await tx.query(sql.unsafe`
            UPDATE identity.sessions SET revoked_at = now() WHERE user_id = ${userId} AND revoked_at IS NULL`);
          await tx.query(sql.unsafe`
            UPDATE identity.invitations SET revoked_at = now()
            WHERE lower(email) = lower(${current.email}) AND accepted_at IS NULL AND revoked_at IS NULL`);
          await tx.query(sql.unsafe`
            UPDATE identity.users
            SET email = NULL, password_hash = NULL, deleted_at = now(), disabled_at = coalesce(disabled_at, now()),
                updated_at = now()
            WHERE id = ${userId}`);
          return 'deleted' as const;
        }
        if (change.disabled === true) {
          await tx.query(sql.unsafe`
            UPDATE identity.sessions SET revoked_at = now() WHERE user_id = ${userId} AND revoked_at IS NULL`);
        }
        return tx.one(sql.type(userRow)`
          UPDATE identity.users
          SET global_role = ${change.globalRole ?? current.global_role},
              disabled_at = ${
                change.disabled === undefined
                  ? sql.fragment`disabled_at`
                  : change.disabled
                    ? sql.fragment`coalesce(disabled_at, now())`
                    : null
              },
              updated_at = now()
          WHERE id = ${userId} RETURNING ${userColumns}`);
      });
    },

    /**
     * Sets a new password and revokes every session of the account but `keepSessionId` (the one that
     * changed it, if any). Returns false when the account does not exist.
     */
    async setPassword(
      userId: string,
      passwordHash: string,
      keepSessionId: string | null,
      on?: CommonQueryMethods,
    ): Promise<boolean> {
      const change = async (tx: CommonQueryMethods) => {
        const updated = await tx.query(sql.unsafe`
          UPDATE identity.users SET password_hash = ${passwordHash}, updated_at = now()
          WHERE id = ${userId} AND ${notDeleted}`);
        if (updated.rowCount === 0) return false;
        await tx.query(sql.unsafe`
          UPDATE identity.sessions SET revoked_at = now()
          WHERE user_id = ${userId} AND revoked_at IS NULL
            AND (${keepSessionId}::uuid IS NULL OR id <> ${keepSessionId}::uuid)`);
        return true;
      };
      return on ? change(on) : db().transaction(change);
    },

    membershipsOf: (userId: string) => membershipsOf(db(), userId),

    async listTeams(): Promise<readonly TeamRow[]> {
      return db().any(sql.type(teamRow)`SELECT ${teamColumns} FROM identity.teams ORDER BY slug`);
    },

    async listTeamsOf(userId: string): Promise<readonly TeamRow[]> {
      return db().any(sql.type(teamRow)`
        SELECT ${teamColumns} FROM identity.teams
        WHERE id IN (SELECT team_id FROM identity.memberships WHERE user_id = ${userId}) ORDER BY slug`);
    },

    async getTeam(teamId: string): Promise<TeamRow | null> {
      return db().maybeOne(sql.type(teamRow)`SELECT ${teamColumns} FROM identity.teams WHERE id = ${teamId}`);
    },

    async createTeam(input: { slug: string; name: string }): Promise<TeamRow> {
      try {
        return await db().one(sql.type(teamRow)`
          INSERT INTO identity.teams (slug, name) VALUES (${input.slug}, ${input.name}) RETURNING ${teamColumns}`);
      } catch (error) {
        translate(error, { unique: 'A team with this slug already exists' });
      }
    },

    async updateTeam(teamId: string, input: { slug?: string | undefined; name?: string | undefined }) {
      try {
        return await db().maybeOne(sql.type(teamRow)`
          UPDATE identity.teams
          SET slug = coalesce(${input.slug ?? null}, slug), name = coalesce(${input.name ?? null}, name),
              updated_at = now()
          WHERE id = ${teamId} RETURNING ${teamColumns}`);
      } catch (error) {
        translate(error, { unique: 'A team with this slug already exists' });
      }
    },

    /** Deletes the team (memberships cascade) and returns the ids of the users who were its members. */
    async deleteTeam(teamId: string): Promise<string[] | null> {
      return db().transaction(async (tx) => {
        const members = await tx.anyFirst(sql.type(z.object({ user_id: z.string() }))`
          SELECT user_id FROM identity.memberships WHERE team_id = ${teamId}`);
        const deleted = await tx.query(sql.unsafe`DELETE FROM identity.teams WHERE id = ${teamId}`);
        return deleted.rowCount === 0 ? null : [...members];
      });
    },

    async listMembers(teamId: string): Promise<readonly MemberRow[]> {
      return db().any(sql.type(memberRow)`
        SELECT m.user_id, u.email, u.name, m.role, m.created_at
        FROM identity.memberships m JOIN identity.users u ON u.id = m.user_id
        WHERE m.team_id = ${teamId} ORDER BY lower(u.email)`);
    },

    async getMember(teamId: string, userId: string, on?: CommonQueryMethods): Promise<MemberRow | null> {
      return (on ?? db()).maybeOne(sql.type(memberRow)`
        SELECT m.user_id, u.email, u.name, m.role, m.created_at
        FROM identity.memberships m JOIN identity.users u ON u.id = m.user_id
        WHERE m.team_id = ${teamId} AND m.user_id = ${userId}`);
    },

    async addMember(teamId: string, userId: string, role: TeamRole, on?: CommonQueryMethods): Promise<void> {
      try {
        await (on ?? db()).query(sql.unsafe`
          INSERT INTO identity.memberships (team_id, user_id, role) VALUES (${teamId}, ${userId}, ${role})`);
      } catch (error) {
        translate(error, {
          unique: 'This user is already a member of the team',
          foreignKey: 'No such team or user',
        });
      }
    },

    /**
     * Changes a member's role or removes the member. With `keepAnAdmin` (a team admin acting, not a
     * global admin) it refuses to leave the team without a team admin, since nobody but a global admin
     * could then manage it. Runs under a row lock of the team so two concurrent demotions cannot both
     * pass the check. Returns false when the user is not a member.
     */
    async changeMember(
      teamId: string,
      userId: string,
      change: { role: TeamRole } | { remove: true },
      options: { keepAnAdmin: boolean },
    ): Promise<boolean> {
      return db().transaction(async (tx) => {
        await tx.query(sql.unsafe`SELECT 1 FROM identity.teams WHERE id = ${teamId} FOR UPDATE`);
        const current = await tx.maybeOneFirst(sql.type(z.object({ role: z.string() }))`
          SELECT role FROM identity.memberships WHERE team_id = ${teamId} AND user_id = ${userId}`);
        if (current === null) return false;
        const losesAdmin = current === 'team_admin' && ('remove' in change || change.role !== 'team_admin');
        if (losesAdmin && options.keepAnAdmin) {
          const admins = await tx.oneFirst(sql.type(z.object({ n: z.number() }))`
            SELECT count(*)::int AS n FROM identity.memberships WHERE team_id = ${teamId} AND role = 'team_admin'`);
          if (admins <= 1) {
            throw new AppError('conflict', 'A team must keep at least one team admin', {
              instructions: 'Make another member team_admin first.',
            });
          }
        }
        if ('remove' in change) {
          await tx.query(sql.unsafe`
            DELETE FROM identity.memberships WHERE team_id = ${teamId} AND user_id = ${userId}`);
        } else {
          await tx.query(sql.unsafe`
            UPDATE identity.memberships SET role = ${change.role}, updated_at = now()
            WHERE team_id = ${teamId} AND user_id = ${userId}`);
        }
        return true;
      });
    },
  };
}

export type IdentityStore = ReturnType<typeof createIdentityStore>;
