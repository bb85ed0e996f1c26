import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import {
  type AuthorizationServerMetadata,
  exchangeAuthorization,
  type OAuthClientInformationFull,
  OAuthError,
  type OAuthTokens,
  refreshAuthorization,
  startAuthorization,
} from '@modelcontextprotocol/client';
import { hasTeamPermission } from '@orbital/access';
import { type AuditContext, recordAudit } from '@orbital/audit';
import type {
  CallerIdentity,
  OAuthConnectionView,
  OAuthFlowOutcome,
  OAuthStatusView,
  SatelliteTokenReply,
  TemplateOAuth,
} from '@orbital/contracts';
import type { SecretBox } from '@orbital/crypto';
import type { CommonQueryMethods, LivePool } from '@orbital/db';
import type { GuardedFetch } from '@orbital/egress';
import { AppError } from '@orbital/errors';
import type { Logger } from '@orbital/logger';
import type { TokenRow } from '../db/oauthQueries.ts';
import * as o from '../db/oauthQueries.ts';
import { type AuthorizationPlan, prepareAuthorization, remoteProblem } from './prepareAuthorization.ts';

/** The installation facts the flow needs: its team, its server's URL and what the template says about OAuth. */
export type OAuthInstallation = { id: string; team_id: string; url: string | null; oauth: TemplateOAuth | null };

export type RemoteOAuthDeps = {
  pool: LivePool;
  box: SecretBox;
  logger: Logger;
  /** Every request to a server, an authorization server or a registration endpoint goes through this. */
  fetch: GuardedFetch;
  /** The installation of the team (not_found otherwise), with its template's URL and OAuth statement. */
  findInstallation(db: CommonQueryMethods, teamId: string, installationId: string): Promise<OAuthInstallation>;
  /** The same by id alone, for satellites, which name no team. */
  findInstallationById(db: CommonQueryMethods, installationId: string): Promise<OAuthInstallation | null>;
  /** Tells the satellites of the team to take the installation's configuration again (a token arrived). */
  reconfigure(db: CommonQueryMethods, installation: { id: string; team_id: string }): Promise<void>;
  /** After a transaction that queued commands or revocations: deliver them now. */
  afterCommit(): Promise<void>;
  /** A token this close to its end is refreshed before it is handed out. */
  refreshMarginSeconds: number;
  flowTtlSeconds?: number;
  now?: () => number;
};

type SealedFlow = {
  code_verifier: string;
  redirect_uri: string;
  resource: string;
  issuer: string;
  metadata: AuthorizationServerMetadata;
  client: OAuthClientInformationFull;
};

type SealedTokens = { tokens: OAuthTokens; client: OAuthClientInformationFull };

const teamOwner = 'team';
const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

function oauthOf(installation: OAuthInstallation): TemplateOAuth & { url: string } {
  if (!installation.oauth || !installation.url) {
    throw new AppError('validation_failed', "This installation's server does not use OAuth; nothing to authorize");
  }
  return { ...installation.oauth, url: installation.url };
}

/**
 * The MCP authorization flow for installations of remote servers that need OAuth, on Orbital's side as
 * the client: start (discovery, registration, PKCE, state), complete (code exchange, issuer check, tokens
 * stored encrypted), hand tokens to satellites (refreshed before they expire), forget and revoke.
 */
export function createRemoteOAuth(deps: RemoteOAuthDeps) {
  const { pool, box, logger } = deps;
  const now = deps.now ?? Date.now;
  const flowTtlSeconds = deps.flowTtlSeconds ?? 600;

  const clients = {
    async find(issuer: string, redirectUri: string) {
      const sealed = await o.findRegisteredClient(pool.get(), issuer, redirectUri);
      return sealed ? (JSON.parse(box.decrypt(sealed, `oauth-client:${issuer}`)) as OAuthClientInformationFull) : null;
    },
    async save(issuer: string, redirectUri: string, client: OAuthClientInformationFull) {
      const sealed = box.encrypt(JSON.stringify(client), `oauth-client:${issuer}`);
      const kept = await o.saveRegisteredClient(pool.get(), issuer, redirectUri, sealed);
      return JSON.parse(box.decrypt(kept, `oauth-client:${issuer}`)) as OAuthClientInformationFull;
    },
  };

  const sealTokens = (installationId: string, owner: string, value: SealedTokens) =>
    box.encrypt(JSON.stringify(value), `oauth-token:${installationId}:${owner}`);
  const openTokens = (row: TokenRow): SealedTokens =>
    JSON.parse(box.decrypt(row.sealed_tokens, `oauth-token:${row.installation_id}:${row.token_owner}`));
  const expiryOf = (tokens: OAuthTokens) =>
    tokens.expires_in === undefined ? null : new Date(now() + tokens.expires_in * 1000).toISOString();

  /** Queues the revocation of a removed token row's tokens (after commit, retried). */
  async function queueRevocationOf(db: CommonQueryMethods, row: TokenRow): Promise<void> {
    const endpoint = row.server_metadata.revocation_endpoint;
    if (typeof endpoint !== 'string') return;
    const { tokens, client } = openTokens(row);
    const id = randomUUID();
    const request = { tokens: [tokens.refresh_token, tokens.access_token].filter(Boolean), client };
    await o.queueRevocation(db, {
      id,
      endpoint,
      sealedRequest: box.encrypt(JSON.stringify(request), `oauth-revocation:${id}`),
    });
  }

  function connectionView(row: TokenRow): OAuthConnectionView {
    return {
      owner: row.token_owner === teamOwner ? 'team' : { user_id: row.token_owner },
      authorized_by: row.authorized_by,
      authorized_at: row.authorized_at,
      expires_at: row.expires_at,
      refreshed_at: row.refreshed_at,
      scope: row.scope,
      authorization_server: row.issuer,
    };
  }

  function ownerFor(oauth: TemplateOAuth, identity: CallerIdentity, teamId: string): string {
    if (identity.kind !== 'user') throw new AppError('forbidden', 'An authorization is made by a signed-in person');
    if (oauth.token_scope === 'user') return identity.user_id;
    if (!hasTeamPermission(identity, teamId, 'installations.manage')) {
      throw new AppError('forbidden', 'This server uses one token for the whole team; a team admin authorizes it');
    }
    return teamOwner;
  }

  function authorizeUrl(consoleUrl: string, installation: { id: string; team_id: string }): string {
    const base = consoleUrl.replace(/\/+$/, '');
    return `${base}/teams/${encodeURIComponent(installation.team_id)}/installations/${encodeURIComponent(installation.id)}`;
  }

  /** Refreshes a locked row's tokens; null when the authorization is gone (refused refresh, or none to use). */
  async function refreshed(db: CommonQueryMethods, row: TokenRow): Promise<OAuthTokens | null> {
    const { tokens, client } = openTokens(row);
    if (!tokens.refresh_token) return null;
    let fresh: OAuthTokens;
    try {
      fresh = await refreshAuthorization(row.issuer, {
        metadata: row.server_metadata as AuthorizationServerMetadata,
        clientInformation: client,
        refreshToken: tokens.refresh_token,
        ...(row.resource ? { resource: row.resource } : {}),
        fetchFn: deps.fetch,
      });
    } catch (error) {
      if (
        error instanceof OAuthError &&
        ['invalid_grant', 'invalid_client', 'unauthorized_client'].includes(error.code)
      ) {
        logger.info(
          { installation_id: row.installation_id, oauth_error: error.code },
          'remote authorization refused on refresh; forgotten',
        );
        return null;
      }
      throw remoteProblem(`Refreshing the token at ${row.issuer} failed`, error);
    }
    await o.storeRefreshedToken(db, row.installation_id, row.token_owner, {
      sealedTokens: sealTokens(row.installation_id, row.token_owner, { tokens: fresh, client }),
      scope: fresh.scope ?? row.scope,
      expiresAt: expiryOf(fresh),
    });
    return fresh;
  }

  return {
    async getStatus(identity: CallerIdentity, teamId: string, installationId: string): Promise<OAuthStatusView> {
      const db = pool.get();
      const installation = await deps.findInstallation(db, teamId, installationId);
      const oauth = oauthOf(installation);
      const rows = await o.listTokens(db, installationId);
      const userId = identity.kind === 'user' ? identity.user_id : null;
      const admin = hasTeamPermission(identity, teamId, 'installations.manage');
      const mine = oauth.token_scope === 'team' ? teamOwner : userId;
      return {
        installation_id: installationId,
        token_scope: oauth.token_scope,
        connected: rows.some((r) => r.token_owner === mine),
        connections: rows
          .filter((r) => admin || r.token_owner === teamOwner || r.token_owner === userId)
          .map(connectionView),
      };
    },

    async start(
      identity: CallerIdentity,
      request: { team_id: string; installation_id: string; redirect_uri: string; client_metadata_url: string },
    ) {
      const installation = await deps.findInstallation(pool.get(), request.team_id, request.installation_id);
      const oauth = oauthOf(installation);
      const owner = ownerFor(oauth, identity, request.team_id);
      const plan: AuthorizationPlan = await prepareAuthorization({
        serverUrl: oauth.url,
        redirectUri: request.redirect_uri,
        clientMetadataUrl: request.client_metadata_url,
        scopes: oauth.scopes,
        fetch: deps.fetch,
        clients,
      });
      const state = randomBytes(32).toString('base64url');
      const binding = randomBytes(32).toString('base64url');
      const { authorizationUrl, codeVerifier } = await startAuthorization(plan.issuer, {
        metadata: plan.metadata,
        clientInformation: plan.client,
        redirectUrl: request.redirect_uri,
        state,
        resource: plan.resource,
        ...(plan.scope ? { scope: plan.scope } : {}),
      });
      // startAuthorization writes the resource through URL (a pathless one gains "/"): send it as stated.
      authorizationUrl.searchParams.set('resource', plan.resource);
      const stateHash = sha256(state);
      const flow: SealedFlow = {
        code_verifier: codeVerifier,
        redirect_uri: request.redirect_uri,
        resource: plan.resource,
        issuer: plan.issuer,
        metadata: plan.metadata,
        client: plan.client,
      };
      const expiresAt = new Date(now() + flowTtlSeconds * 1000).toISOString();
      await o.insertFlow(pool.get(), {
        stateHash,
        installationId: installation.id,
        teamId: installation.team_id,
        startedBy: (identity as { user_id: string }).user_id,
        tokenOwner: owner,
        bindingHash: sha256(binding),
        sealedFlow: box.encrypt(JSON.stringify(flow), `oauth-flow:${stateHash}`),
        expiresAt,
      });
      return { authorization_url: authorizationUrl.href, browser_binding: binding, expires_at: expiresAt };
    },

    async complete(
      request: {
        state: string;
        browser_binding: string;
        code?: string | undefined;
        iss?: string | undefined;
        error?: string | undefined;
        error_description?: string | undefined;
      },
      audit: AuditContext,
    ): Promise<OAuthFlowOutcome> {
      const stateHash = sha256(request.state);
      const flowRow = await o.takeFlow(pool.get(), stateHash);
      if (!flowRow || flowRow.expired) {
        throw new AppError('not_found', 'This authorization request is unknown, already used or expired', {
          instructions: "Start the authorization again from the installation's page in the console.",
        });
      }
      if (!sameHash(flowRow.binding_hash, sha256(request.browser_binding))) {
        logger.warn(
          { event: 'oauth.remote_flow_foreign_browser', installation_id: flowRow.installation_id },
          'remote authorization completed in a browser that did not start it; refused',
        );
        throw new AppError('forbidden', 'This authorization was started in another browser', {
          instructions: 'Start the authorization again from the console, in the browser you complete it in.',
        });
      }
      const outcome = (kind: OAuthFlowOutcome['outcome'], message: string): OAuthFlowOutcome => ({
        team_id: flowRow.team_id,
        installation_id: flowRow.installation_id,
        outcome: kind,
        message,
      });
      // The redirect back carries no session: the person is the one who started the flow.
      const entry = {
        action: 'installation.oauth_authorized' as const,
        actor: { kind: 'user' as const, id: flowRow.started_by, email: null, name: null },
        source_ip: audit.source_ip,
        request_id: audit.request_id,
        target: { kind: 'installation', id: flowRow.installation_id },
        team_id: flowRow.team_id,
        details: { for: flowRow.token_owner === teamOwner ? 'team' : 'self' },
      };
      const failed = async (kind: 'refused' | 'failed', message: string) => {
        await recordAudit(pool.get(), { ...entry, outcome: 'failure', reason: message });
        return outcome(kind, message);
      };
      if (request.error || !request.code) {
        const refused = request.error === 'access_denied';
        logger.info(
          { installation_id: flowRow.installation_id, oauth_error: request.error ?? 'no_code' },
          'remote authorization not given',
        );
        return failed(
          refused ? 'refused' : 'failed',
          refused
            ? 'The authorization was refused at the authorization server; nothing was stored.'
            : `The authorization server answered ${request.error ?? 'without a code'}${request.error_description ? `: ${request.error_description}` : ''}`,
        );
      }
      const flow = JSON.parse(box.decrypt(flowRow.sealed_flow, `oauth-flow:${stateHash}`)) as SealedFlow;
      let tokens: OAuthTokens;
      try {
        tokens = await exchangeAuthorization(flow.issuer, {
          metadata: flow.metadata,
          clientInformation: flow.client,
          authorizationCode: request.code,
          iss: request.iss,
          codeVerifier: flow.code_verifier,
          redirectUri: flow.redirect_uri,
          resource: flow.resource,
          fetchFn: deps.fetch,
        });
      } catch (error) {
        const problem = remoteProblem('The authorization code could not be exchanged for a token', error);
        logger.warn({ installation_id: flowRow.installation_id, err: problem.message }, 'remote authorization failed');
        if (problem.code === 'unavailable') throw problem;
        return failed('failed', problem.message);
      }
      await pool.get().transaction(async (tx) => {
        const installation = await deps.findInstallation(tx, flowRow.team_id, flowRow.installation_id);
        await o.upsertToken(tx, {
          installationId: installation.id,
          tokenOwner: flowRow.token_owner,
          teamId: installation.team_id,
          sealedTokens: sealTokens(installation.id, flowRow.token_owner, { tokens, client: flow.client }),
          scope: tokens.scope ?? null,
          expiresAt: expiryOf(tokens),
          issuer: flow.issuer,
          redirectUri: flow.redirect_uri,
          resource: flow.resource,
          serverMetadata: flow.metadata as Record<string, unknown>,
          authorizedBy: flowRow.started_by,
        });
        // Satellites waiting for a first token (or holding a refused one) connect again.
        await deps.reconfigure(tx, installation);
        await recordAudit(tx, { ...entry, details: { ...entry.details, authorization_server: flow.issuer } });
      });
      await deps.afterCommit();
      logger.info(
        { installation_id: flowRow.installation_id, owner: flowRow.token_owner === teamOwner ? 'team' : 'user' },
        'remote authorization stored',
      );
      return outcome('connected', 'Authorized: calls of this server now carry the token.');
    },

    async disconnect(
      identity: CallerIdentity,
      request: { team_id: string; installation_id: string; owner: 'team' | 'me' | { user_id: string } },
      audit: AuditContext,
    ) {
      const userId = identity.kind === 'user' ? identity.user_id : null;
      const owner = request.owner === 'me' ? userId : request.owner === 'team' ? teamOwner : request.owner.user_id;
      if (!owner) throw new AppError('forbidden', 'Only a signed-in person has authorizations of their own');
      if (owner !== userId && !hasTeamPermission(identity, request.team_id, 'installations.manage')) {
        throw new AppError('forbidden', "Only a team admin removes the team's or another member's authorization");
      }
      const deleted = await pool.get().transaction(async (tx) => {
        await deps.findInstallation(tx, request.team_id, request.installation_id);
        const row = await o.deleteToken(tx, request.installation_id, owner);
        if (row) {
          await queueRevocationOf(tx, row);
          await recordAudit(tx, {
            ...audit,
            action: 'installation.oauth_revoked',
            target: { kind: 'installation', id: request.installation_id },
            team_id: request.team_id,
            details: { owner: owner === teamOwner ? 'team' : owner },
          });
        }
        return row !== null;
      });
      await deps.afterCommit();
      return { deleted };
    },

    /** In the transaction that removes an installation: revoke every token it held, once committed. */
    async revokeAll(tx: CommonQueryMethods, installationId: string): Promise<void> {
      for (const row of await o.listTokens(tx, installationId)) await queueRevocationOf(tx, row);
    },

    async tokenForSatellite(
      satellite: CallerIdentity,
      request: {
        installation_id: string;
        user_id: string | null;
        purpose: 'call' | 'discovery';
        refused: boolean;
        console_url: string;
      },
    ): Promise<SatelliteTokenReply> {
      const installation = await deps.findInstallationById(pool.get(), request.installation_id);
      const serves =
        satellite.kind === 'satellite' &&
        (satellite.satellite_type === 'global' || satellite.team_id === installation?.team_id);
      if (!installation || !serves) throw new AppError('not_found', 'No such installation for this satellite');
      const oauth = oauthOf(installation);
      const where = authorizeUrl(request.console_url, installation);
      const required = (message: string): SatelliteTokenReply => ({
        status: 'authorization_required',
        message: `${message} Authorize at ${where}`,
        authorize_url: where,
      });
      let owner: string | null;
      if (oauth.token_scope === 'team') owner = teamOwner;
      else if (request.purpose === 'discovery') owner = await o.anyTokenOwner(pool.get(), installation.id);
      else owner = request.user_id;
      if (!owner) {
        return required(
          oauth.token_scope === 'user' && request.purpose === 'call'
            ? 'This MCP server needs each person to authorize Orbital with their own account, and the satellite does not know who is calling (it authenticates no clients).'
            : 'Nobody has authorized Orbital at this MCP server yet.',
        );
      }
      const answer = await pool.get().transaction(async (tx) => {
        const row = await o.findToken(tx, installation.id, owner, true);
        if (!row) {
          return required(
            owner === teamOwner
              ? "This MCP server needs the team's authorization, which a team admin has not given yet."
              : 'You have not authorized Orbital at this MCP server yet.',
          );
        }
        let { access_token, token_type } = openTokens(row).tokens;
        let expiresAt = row.expires_at ? Date.parse(row.expires_at) : null;
        const ending = expiresAt !== null && expiresAt - deps.refreshMarginSeconds * 1000 <= now();
        if (ending || request.refused) {
          const fresh = await refreshed(tx, row);
          if (!fresh) {
            await o.deleteToken(tx, installation.id, owner);
            return required(
              'The authorization has expired or was revoked at the authorization server; it must be given again.',
            );
          }
          ({ access_token, token_type } = fresh);
          expiresAt = fresh.expires_in === undefined ? null : now() + fresh.expires_in * 1000;
        }
        return {
          status: 'ok' as const,
          access_token,
          token_type,
          expires_at: expiresAt === null ? null : Math.floor(expiresAt / 1000),
        };
      });
      return answer;
    },
  };
}

export type RemoteOAuth = ReturnType<typeof createRemoteOAuth>;
