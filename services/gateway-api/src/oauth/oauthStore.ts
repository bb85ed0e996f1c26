import { type AuditRecord, recordAudit } from '@orbital/audit';
import { accessTokenView } from '@orbital/contracts';
import { type CommonQueryMethods, type LivePool, sql } from '@orbital/db';
import { z } from 'zod';

const clientRow = z.object({
  client_id: z.string(),
  client_secret_hash: z.instanceof(Buffer).nullable(),
  client_name: z.string().nullable(),
  redirect_uris: z.array(z.string()),
  token_endpoint_auth_method: z.enum(['none', 'client_secret_post', 'client_secret_basic']),
  metadata: z.record(z.string(), z.unknown()),
  created_at: z.number(),
});
export type ClientRow = z.infer<typeof clientRow>;

const codeRow = z.object({
  client_id: z.string(),
  user_id: z.string(),
  team_id: z.string(),
  redirect_uri: z.string(),
  code_challenge: z.string(),
  scope: z.string(),
  resource: z.string().nullable(),
  expires_at: z.number(),
  used_at: z.number().nullable(),
  grant_id: z.string().nullable(),
});
export type CodeRow = z.infer<typeof codeRow>;

/** A grant as listed: the contract's access-token view, with the timestamps as slonik parses them. */
const grantView = accessTokenView.extend({ created_at: z.number(), expires_at: z.number() });
export type GrantView = z.infer<typeof grantView>;

/** What a grant allows, read from its columns: whose it is, for which team, client, scope and resource. */
const grantTerms = grantView.pick({ user_id: true, team_id: true, client_id: true, scope: true, resource: true });

/** An access token in force: its grant's terms, and the token's own start and (capped by the grant) end. */
const activeTokenRow = grantTerms.extend({
  grant_id: grantView.shape.id,
  grant_kind: grantView.shape.kind,
  created_at: z.number(),
  expires_at: z.number(),
});
export type ActiveToken = z.infer<typeof activeTokenRow>;

/** A refresh token with its grant's terms and everything that decides whether it may still be used. */
const refreshRow = grantTerms.extend({
  grant_id: grantView.shape.id,
  token_expires_at: z.number(),
  token_revoked_at: z.number().nullable(),
  grant_revoked_at: z.number().nullable(),
  is_member: z.boolean(),
});

export type NewToken = { hash: Buffer; kind: 'access' | 'refresh'; expiresAt: Date };

const iso = (date: Date) => sql.fragment`${date.toISOString()}::timestamptz`;

/** Grants as listed (grantView): with their user's e-mail address and their client's name. */
const selectGrants = sql.fragment`
  SELECT g.id, g.kind, g.user_id, u.email AS user_email, g.team_id, g.client_id, c.client_name, g.name, g.scope,
    g.resource, g.created_at, g.expires_at
  FROM identity.oauth_grants g JOIN identity.users u ON u.id = g.user_id
    LEFT JOIN identity.oauth_clients c ON c.client_id = g.client_id`;

/** Grants still in force: not revoked, not past their end. */
const inForce = sql.fragment`g.revoked_at IS NULL AND g.expires_at > now()`;

/**
 * The typed queries of the OAuth tables (identity schema), on the pool, or on one transaction's
 * connection inside `inTransaction`.
 */
export function createOAuthStore(pool: LivePool) {
  const db = () => pool.get();
  const store = oauthQueriesOn(db);
  return {
    ...store,
    /** Runs changes and their audit entry (`audit`) in one transaction: they commit together or not at all. */
    inTransaction<T>(run: (tx: typeof store) => Promise<T>): Promise<T> {
      return db().transaction((tx) => run(oauthQueriesOn(() => tx)));
    },
  };
}

function oauthQueriesOn(db: () => CommonQueryMethods) {
  async function insertTokens(
    tx: Parameters<Parameters<ReturnType<typeof db>['transaction']>[0]>[0],
    grantId: string,
    tokens: NewToken[],
  ) {
    for (const token of tokens) {
      await tx.query(sql.unsafe`
        INSERT INTO identity.oauth_tokens (token_hash, grant_id, kind, expires_at)
        VALUES (${sql.binary(token.hash)}, ${grantId}, ${token.kind}, ${iso(token.expiresAt)})`);
    }
  }

  /** The grants in force that `owner` picks (a user's, a team's), newest first. */
  function grantsInForce(owner: ReturnType<typeof sql.fragment>): Promise<readonly GrantView[]> {
    return db().any(sql.type(grantView)`${selectGrants} WHERE ${owner} AND ${inForce} ORDER BY g.created_at DESC`);
  }

  return {
    /** Records an audit entry on this store's connection: in its transaction inside `inTransaction`. */
    audit: (record: AuditRecord) => recordAudit(db(), record),

    async registerClient(input: {
      clientId: string;
      secretHash: Buffer | null;
      clientName: string | null;
      redirectUris: string[];
      authMethod: ClientRow['token_endpoint_auth_method'];
      metadata: Record<string, unknown>;
    }): Promise<ClientRow> {
      return db().one(sql.type(clientRow)`
        INSERT INTO identity.oauth_clients
          (client_id, client_secret_hash, client_name, redirect_uris, token_endpoint_auth_method, metadata)
        VALUES (${input.clientId}, ${input.secretHash ? sql.binary(input.secretHash) : null}, ${input.clientName},
          ${sql.array(input.redirectUris, 'text')}, ${input.authMethod}, ${sql.jsonb(input.metadata as never)})
        RETURNING client_id, client_secret_hash, client_name, redirect_uris, token_endpoint_auth_method, metadata, created_at`);
    },

    /**
     * Records a client described by its metadata document (its id is the document's URL), or refreshes
     * the record with the document as last fetched, so codes and grants can refer to it like any client.
     */
    async saveDocumentClient(input: {
      clientId: string;
      clientName: string | null;
      redirectUris: string[];
      metadata: Record<string, unknown>;
    }): Promise<ClientRow> {
      return db().one(sql.type(clientRow)`
        INSERT INTO identity.oauth_clients
          (client_id, client_secret_hash, client_name, redirect_uris, token_endpoint_auth_method, metadata)
        VALUES (${input.clientId}, NULL, ${input.clientName}, ${sql.array(input.redirectUris, 'text')}, 'none',
          ${sql.jsonb(input.metadata as never)})
        ON CONFLICT (client_id) DO UPDATE SET client_name = EXCLUDED.client_name,
          redirect_uris = EXCLUDED.redirect_uris, metadata = EXCLUDED.metadata
        RETURNING client_id, client_secret_hash, client_name, redirect_uris, token_endpoint_auth_method, metadata, created_at`);
    },

    async getClient(clientId: string): Promise<ClientRow | null> {
      return db().maybeOne(sql.type(clientRow)`
        SELECT client_id, client_secret_hash, client_name, redirect_uris, token_endpoint_auth_method, metadata, created_at
        FROM identity.oauth_clients WHERE client_id = ${clientId}`);
    },

    /** Whether the user is in the team and may use it: a disabled account counts as no member. */
    async isMember(userId: string, teamId: string): Promise<boolean> {
      return db().exists(sql.unsafe`
        SELECT 1 FROM identity.memberships m JOIN identity.users u ON u.id = m.user_id
        WHERE m.user_id = ${userId} AND m.team_id = ${teamId} AND u.disabled_at IS NULL`);
    },

    async createCode(input: {
      codeHash: Buffer;
      clientId: string;
      userId: string;
      teamId: string;
      redirectUri: string;
      codeChallenge: string;
      scope: string;
      resource: string | null;
      expiresAt: Date;
    }): Promise<void> {
      await db().query(sql.unsafe`
        INSERT INTO identity.oauth_authorization_codes
          (code_hash, client_id, user_id, team_id, redirect_uri, code_challenge, scope, resource, expires_at)
        VALUES (${sql.binary(input.codeHash)}, ${input.clientId}, ${input.userId}, ${input.teamId},
          ${input.redirectUri}, ${input.codeChallenge}, ${input.scope}, ${input.resource}, ${iso(input.expiresAt)})`);
    },

    /**
     * Marks a code used and returns it as it was before, in one transaction under a row lock, so two
     * concurrent exchanges of one code cannot both see it unused. Null for a code never issued.
     */
    async consumeCode(codeHash: Buffer): Promise<CodeRow | null> {
      return db().transaction(async (tx) => {
        const row = await tx.maybeOne(sql.type(codeRow)`
          SELECT client_id, user_id, team_id, redirect_uri, code_challenge, scope, resource, expires_at, used_at, grant_id
          FROM identity.oauth_authorization_codes WHERE code_hash = ${sql.binary(codeHash)} FOR UPDATE`);
        if (row && row.used_at === null) {
          await tx.query(sql.unsafe`
            UPDATE identity.oauth_authorization_codes SET used_at = now() WHERE code_hash = ${sql.binary(codeHash)}`);
        }
        return row;
      });
    },

    /** Creates a grant with its first tokens; with `codeHash`, records which grant the code became. */
    async createGrant(input: {
      kind: 'oauth' | 'personal';
      userId: string;
      teamId: string;
      clientId: string | null;
      name: string;
      scope: string;
      resource: string | null;
      expiresAt: Date;
      tokens: NewToken[];
      codeHash?: Buffer;
    }): Promise<string> {
      return db().transaction(async (tx) => {
        const grantId = await tx.oneFirst(sql.type(z.object({ id: z.string() }))`
          INSERT INTO identity.oauth_grants (kind, user_id, team_id, client_id, name, scope, resource, expires_at)
          VALUES (${input.kind}, ${input.userId}, ${input.teamId}, ${input.clientId}, ${input.name}, ${input.scope},
            ${input.resource}, ${iso(input.expiresAt)})
          RETURNING id`);
        await insertTokens(tx, grantId, input.tokens);
        if (input.codeHash) {
          await tx.query(sql.unsafe`
            UPDATE identity.oauth_authorization_codes SET grant_id = ${grantId}
            WHERE code_hash = ${sql.binary(input.codeHash)}`);
        }
        return grantId;
      });
    },

    /**
     * Refresh-token rotation (OAuth 2.1 section 4.3.1): the presented token is revoked and new tokens
     * issued in one transaction. A refresh token presented again after its rotation means it leaked:
     * the whole grant is revoked, unless it comes within `reuseGraceMs` (a client racing itself).
     */
    async rotateRefreshToken(input: {
      hash: Buffer;
      clientId: string;
      now: Date;
      tokens: NewToken[];
      grantExpiresAt: Date;
      reuseGraceMs: number;
    }): Promise<
      | { kind: 'rotated'; grantId: string; userId: string; teamId: string; scope: string; resource: string | null }
      | { kind: 'unknown' | 'reused' | 'raced' | 'expired' | 'wrong_client' | 'not_member' }
    > {
      return db().transaction(async (tx) => {
        const row = await tx.maybeOne(sql.type(refreshRow)`
          SELECT t.grant_id, g.client_id, g.user_id, g.team_id, g.scope, g.resource,
            t.expires_at AS token_expires_at, t.revoked_at AS token_revoked_at, g.revoked_at AS grant_revoked_at,
            EXISTS (
              SELECT 1 FROM identity.memberships m JOIN identity.users u ON u.id = m.user_id
              WHERE m.user_id = g.user_id AND m.team_id = g.team_id AND u.disabled_at IS NULL
            ) AS is_member
          FROM identity.oauth_tokens t JOIN identity.oauth_grants g ON g.id = t.grant_id
          WHERE t.token_hash = ${sql.binary(input.hash)} AND t.kind = 'refresh'
          FOR UPDATE OF t, g`);
        if (!row) return { kind: 'unknown' as const };
        if (row.client_id !== input.clientId) return { kind: 'wrong_client' as const };
        if (row.grant_revoked_at !== null) return { kind: 'reused' as const };
        if (row.token_revoked_at !== null) {
          // A client's concurrent requests (its POST and its SSE stream, both answered 401) refresh at
          // once with the same token: inside the grace period the loser just fails and uses what the
          // winner saved. A use after it is a leaked token, and ends the grant.
          if (input.now.getTime() - row.token_revoked_at < input.reuseGraceMs) return { kind: 'raced' as const };
          await tx.query(sql.unsafe`
            UPDATE identity.oauth_grants SET revoked_at = now() WHERE id = ${row.grant_id} AND revoked_at IS NULL`);
          return { kind: 'reused' as const };
        }
        if (row.token_expires_at <= input.now.getTime()) return { kind: 'expired' as const };
        if (!row.is_member) return { kind: 'not_member' as const };
        await tx.query(sql.unsafe`
          UPDATE identity.oauth_tokens SET revoked_at = ${iso(input.now)} WHERE token_hash = ${sql.binary(input.hash)}`);
        await insertTokens(tx, row.grant_id, input.tokens);
        await tx.query(sql.unsafe`
          UPDATE identity.oauth_grants SET expires_at = ${iso(input.grantExpiresAt)} WHERE id = ${row.grant_id}`);
        return {
          kind: 'rotated' as const,
          grantId: row.grant_id,
          userId: row.user_id,
          teamId: row.team_id,
          scope: row.scope,
          resource: row.resource,
        };
      });
    },

    /**
     * The access token named by a hash when it is in force: token and grant unrevoked and unexpired,
     * its user still a member of its team (leaving the team ends every token for it) and not disabled
     * (disabling an account stops its tokens at once; enabling it again lets them work until they end).
     */
    async findActiveAccessToken(hash: Buffer, now: Date): Promise<ActiveToken | null> {
      return db().maybeOne(sql.type(activeTokenRow)`
        SELECT g.id AS grant_id, g.kind AS grant_kind, g.user_id, g.team_id, g.client_id, g.scope, g.resource,
          t.created_at, least(t.expires_at, g.expires_at) AS expires_at
        FROM identity.oauth_tokens t
        JOIN identity.oauth_grants g ON g.id = t.grant_id
        JOIN identity.memberships m ON m.user_id = g.user_id AND m.team_id = g.team_id
        JOIN identity.users u ON u.id = g.user_id AND u.disabled_at IS NULL
        WHERE t.token_hash = ${sql.binary(hash)} AND t.kind = 'access'
          AND t.revoked_at IS NULL AND g.revoked_at IS NULL
          AND t.expires_at > ${iso(now)} AND g.expires_at > ${iso(now)}`);
    },

    listGrantsOfUser(userId: string): Promise<readonly GrantView[]> {
      return grantsInForce(sql.fragment`g.user_id = ${userId}`);
    },

    listGrantsOfTeam(teamId: string): Promise<readonly GrantView[]> {
      return grantsInForce(sql.fragment`g.team_id = ${teamId}`);
    },

    async getGrant(grantId: string): Promise<GrantView | null> {
      return db().maybeOne(sql.type(grantView)`${selectGrants} WHERE g.id = ${grantId}`);
    },

    /** Revokes a grant in force that matches `where`; false when there is none (unknown, not theirs, ended). */
    async revokeGrant(grantId: string, where: { userId: string } | { teamId: string }): Promise<boolean> {
      const owner =
        'userId' in where ? sql.fragment`user_id = ${where.userId}` : sql.fragment`team_id = ${where.teamId}`;
      const result = await db().query(sql.unsafe`
        UPDATE identity.oauth_grants g SET revoked_at = now()
        WHERE g.id = ${grantId} AND ${owner} AND ${inForce}`);
      return result.rowCount > 0;
    },

    /** The grant and client of any token (access or refresh), revoked or not, for RFC 7009 revocation. */
    async findGrantOfToken(hash: Buffer): Promise<{ grant_id: string; client_id: string | null } | null> {
      return db().maybeOne(sql.type(z.object({ grant_id: z.string(), client_id: z.string().nullable() }))`
        SELECT t.grant_id, g.client_id FROM identity.oauth_tokens t JOIN identity.oauth_grants g ON g.id = t.grant_id
        WHERE t.token_hash = ${sql.binary(hash)}`);
    },

    /** Revokes the grant a reused authorization code was exchanged for (RFC 6749 section 4.1.2). */
    async revokeGrantById(grantId: string): Promise<void> {
      await db().query(sql.unsafe`
        UPDATE identity.oauth_grants SET revoked_at = now() WHERE id = ${grantId} AND revoked_at IS NULL`);
    },
  };
}

export type OAuthStore = ReturnType<typeof createOAuthStore>;
