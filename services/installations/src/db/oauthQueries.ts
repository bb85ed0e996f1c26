import { installationView } from '@orbital/contracts';
import { type CommonQueryMethods, isoTimestampColumn, sql } from '@orbital/db';
import { z } from 'zod';
import { templateRow } from './rows.ts';

/** A token Orbital holds for an installation: its team's, or one person's (`token_owner`), sealed. */
export const tokenRow = z.object({
  installation_id: installationView.shape.id,
  /** `team`, or the id of the user whose token it is. */
  token_owner: z.string(),
  team_id: installationView.shape.team_id,
  sealed_tokens: z.string(),
  scope: z.string().nullable(),
  expires_at: isoTimestampColumn.nullable(),
  issuer: z.string(),
  redirect_uri: z.string(),
  resource: z.string().nullable(),
  server_metadata: z.record(z.string(), z.unknown()),
  authorized_by: z.string(),
  authorized_at: isoTimestampColumn,
  refreshed_at: isoTimestampColumn.nullable(),
});
export type TokenRow = z.infer<typeof tokenRow>;

/**
 * An authorization flow under way, as read from `oauth_flows` (its own table, not a token's: a flow is
 * started before there is a token, and ends in one only if it completes).
 */
const flowRow = z.object({
  installation_id: installationView.shape.id,
  team_id: installationView.shape.team_id,
  started_by: z.string(),
  /** `team`, or the id of the user the token will be for. */
  token_owner: z.string(),
  binding_hash: z.string(),
  sealed_flow: z.string(),
  expired: z.boolean(),
});
export type FlowRow = z.infer<typeof flowRow>;

const tokenColumns = sql.fragment`installation_id, token_owner, team_id, sealed_tokens, scope, expires_at, issuer,
  redirect_uri, resource, server_metadata, authorized_by, authorized_at, refreshed_at`;

export async function findRegisteredClient(db: CommonQueryMethods, issuer: string, redirectUri: string) {
  return db.maybeOneFirst(
    sql.type(z.object({ sealed_client: z.string() }))`
      SELECT sealed_client FROM oauth_clients WHERE issuer = ${issuer} AND redirect_uri = ${redirectUri}`,
  );
}

/** Keeps the first registration when two flows registered at once, and answers the one kept. */
export async function saveRegisteredClient(
  db: CommonQueryMethods,
  issuer: string,
  redirectUri: string,
  sealedClient: string,
): Promise<string> {
  await db.query(sql.unsafe`
    INSERT INTO oauth_clients (issuer, redirect_uri, sealed_client) VALUES (${issuer}, ${redirectUri}, ${sealedClient})
    ON CONFLICT (issuer, redirect_uri) DO NOTHING`);
  return (await findRegisteredClient(db, issuer, redirectUri)) as string;
}

export async function insertFlow(
  db: CommonQueryMethods,
  flow: {
    stateHash: string;
    installationId: string;
    teamId: string;
    startedBy: string;
    tokenOwner: string;
    bindingHash: string;
    sealedFlow: string;
    expiresAt: string;
  },
): Promise<void> {
  // Flows nobody finished are forgotten as new ones start.
  await db.query(sql.unsafe`DELETE FROM oauth_flows WHERE expires_at < now() - interval '1 hour'`);
  await db.query(sql.unsafe`
    INSERT INTO oauth_flows (state_hash, installation_id, team_id, started_by, token_owner, binding_hash, sealed_flow,
      expires_at)
    VALUES (${flow.stateHash}, ${flow.installationId}, ${flow.teamId}, ${flow.startedBy}, ${flow.tokenOwner},
      ${flow.bindingHash}, ${flow.sealedFlow}, ${flow.expiresAt}::timestamptz)`);
}

/** Takes a flow out (a state is used once, whatever the outcome). */
export async function takeFlow(db: CommonQueryMethods, stateHash: string): Promise<FlowRow | null> {
  return db.maybeOne(sql.type(flowRow)`
    DELETE FROM oauth_flows WHERE state_hash = ${stateHash}
    RETURNING installation_id, team_id, started_by, token_owner, binding_hash, sealed_flow, expires_at < now() AS expired`);
}

export async function upsertToken(
  db: CommonQueryMethods,
  t: {
    installationId: string;
    tokenOwner: string;
    teamId: string;
    sealedTokens: string;
    scope: string | null;
    expiresAt: string | null;
    issuer: string;
    redirectUri: string;
    resource: string | null;
    serverMetadata: Record<string, unknown>;
    authorizedBy: string;
  },
): Promise<void> {
  await db.query(sql.unsafe`
    INSERT INTO oauth_tokens (installation_id, token_owner, team_id, sealed_tokens, scope, expires_at, issuer,
      redirect_uri, resource, server_metadata, authorized_by)
    VALUES (${t.installationId}, ${t.tokenOwner}, ${t.teamId}, ${t.sealedTokens}, ${t.scope},
      ${t.expiresAt}::timestamptz, ${t.issuer}, ${t.redirectUri}, ${t.resource}, ${sql.jsonb(t.serverMetadata as never)},
      ${t.authorizedBy})
    ON CONFLICT (installation_id, token_owner) DO UPDATE SET sealed_tokens = EXCLUDED.sealed_tokens,
      scope = EXCLUDED.scope, expires_at = EXCLUDED.expires_at, issuer = EXCLUDED.issuer,
      redirect_uri = EXCLUDED.redirect_uri, resource = EXCLUDED.resource, server_metadata = EXCLUDED.server_metadata,
      authorized_by = EXCLUDED.authorized_by, authorized_at = now(), refreshed_at = NULL`);
}

export async function findToken(
  db: CommonQueryMethods,
  installationId: string,
  tokenOwner: string,
  lock = false,
): Promise<TokenRow | null> {
  return db.maybeOne(sql.type(tokenRow)`
    SELECT ${tokenColumns} FROM oauth_tokens WHERE installation_id = ${installationId} AND token_owner = ${tokenOwner}
    ${lock ? sql.fragment`FOR UPDATE` : sql.fragment``}`);
}

/** The owner of the freshest token of an installation, the team's first: for listing tools before anyone calls. */
export async function anyTokenOwner(db: CommonQueryMethods, installationId: string): Promise<string | null> {
  return db.maybeOneFirst(sql.type(z.object({ token_owner: z.string() }))`
    SELECT token_owner FROM oauth_tokens WHERE installation_id = ${installationId}
    ORDER BY token_owner = 'team' DESC, coalesce(refreshed_at, authorized_at) DESC LIMIT 1`);
}

export async function listTokens(db: CommonQueryMethods, installationId: string): Promise<readonly TokenRow[]> {
  return db.any(sql.type(tokenRow)`
    SELECT ${tokenColumns} FROM oauth_tokens WHERE installation_id = ${installationId} ORDER BY authorized_at`);
}

export async function storeRefreshedToken(
  db: CommonQueryMethods,
  installationId: string,
  tokenOwner: string,
  t: { sealedTokens: string; scope: string | null; expiresAt: string | null },
): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE oauth_tokens SET sealed_tokens = ${t.sealedTokens}, scope = ${t.scope}, expires_at = ${t.expiresAt}::timestamptz,
      refreshed_at = now()
    WHERE installation_id = ${installationId} AND token_owner = ${tokenOwner}`);
}

export async function deleteToken(db: CommonQueryMethods, installationId: string, tokenOwner: string) {
  return db.maybeOne(sql.type(tokenRow)`
    DELETE FROM oauth_tokens WHERE installation_id = ${installationId} AND token_owner = ${tokenOwner}
    RETURNING ${tokenColumns}`);
}

export async function queueRevocation(
  db: CommonQueryMethods,
  r: { id: string; endpoint: string; sealedRequest: string },
): Promise<void> {
  await db.query(sql.unsafe`
    INSERT INTO oauth_revocations (id, revocation_endpoint, sealed_request)
    VALUES (${r.id}, ${r.endpoint}, ${r.sealedRequest})`);
}

const revocationRow = z.object({
  id: z.string(),
  revocation_endpoint: z.string(),
  sealed_request: z.string(),
  attempts: z.number(),
});
export type RevocationRow = z.infer<typeof revocationRow>;

/** Due revocations, each claimed for a while so two replicas do not send the same one at once. */
export async function claimDueRevocations(db: CommonQueryMethods, leaseMs: number): Promise<readonly RevocationRow[]> {
  return db.any(sql.type(revocationRow)`
    UPDATE oauth_revocations SET next_attempt_at = now() + ${leaseMs} * interval '1 millisecond'
    WHERE id IN (SELECT id FROM oauth_revocations WHERE next_attempt_at <= now() ORDER BY next_attempt_at LIMIT 20
      FOR UPDATE SKIP LOCKED)
    RETURNING id, revocation_endpoint, sealed_request, attempts`);
}

export async function finishRevocation(db: CommonQueryMethods, id: string): Promise<void> {
  await db.query(sql.unsafe`DELETE FROM oauth_revocations WHERE id = ${id}`);
}

export async function retryRevocation(db: CommonQueryMethods, id: string, error: string, delayMs: number) {
  await db.query(sql.unsafe`
    UPDATE oauth_revocations SET attempts = attempts + 1, last_error = ${error},
      next_attempt_at = now() + ${delayMs} * interval '1 millisecond'
    WHERE id = ${id}`);
}

/** The template's URL and OAuth statement are read as the template row reads them. */
const oauthInstallationRow = templateRow
  .pick({ url: true, oauth: true })
  .extend({ id: z.string(), team_id: z.string() });

/** An installation with its template's URL and OAuth statement; a team id narrows it to that team. */
export async function findOAuthInstallation(db: CommonQueryMethods, installationId: string, teamId: string | null) {
  return db.maybeOne(sql.type(oauthInstallationRow)`
    SELECT i.id, i.team_id, t.url, t.oauth
    FROM mcp_installations i JOIN mcp_server_templates t ON t.id = i.template_id
    WHERE i.id = ${installationId} ${teamId === null ? sql.fragment`` : sql.fragment`AND i.team_id = ${teamId}`}`);
}
