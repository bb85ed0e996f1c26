import {
  AccessDeniedError,
  InvalidClientError,
  InvalidGrantError,
  InvalidRequestError,
  InvalidScopeError,
  InvalidTargetError,
  type OAuthError,
  UnsupportedGrantTypeError,
  UnsupportedResponseTypeError,
} from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { redirectUriMatches } from '@modelcontextprotocol/sdk/server/auth/handlers/authorize.js';
import type { OAuthMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';
import { auditContextOf } from '@orbital/audit';
import {
  type IntrospectionResponse,
  introspectionPath,
  introspectionResponse,
  mcpScope,
  uuidField,
} from '@orbital/contracts';
import type { Logger } from '@orbital/logger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { defineRoute } from '../http/defineRoute.ts';
import { publicAccess, signedIn } from '../http/routeAccess.ts';
import { type LoginGate, loginDisabledMessage, sessionOf } from '../identity/index.ts';
import { acceptClientMetadata, firstIssue, supportedAuthMethods, supportedGrantTypes } from './acceptClientMetadata.ts';
import { type ClientMetadataDocuments, isMetadataDocumentClientId } from './createClientMetadataDocuments.ts';
import { answerOAuth, sendOAuthError } from './oauthErrors.ts';
import {
  codeChallengeShape,
  codeVerifierShape,
  createSecret,
  hashSecret,
  isSecretOf,
  pkceS256Matches,
} from './oauthSecrets.ts';
import type { ClientRow, NewToken, OAuthStore } from './oauthStore.ts';
import { renderConsentPage } from './renderConsentPage.ts';
import type { ResourceServerAuthenticator } from './resourceServerAuthenticator.ts';

export type OAuthLifetimes = {
  accessTokenSeconds: number;
  refreshTokenSeconds: number;
  authorizationCodeSeconds: number;
};

export type OAuthServerDeps = {
  store: OAuthStore;
  logger: Logger;
  now: () => number;
  issuerUrl: URL;
  lifetimes: OAuthLifetimes;
  authenticateResourceServer: ResourceServerAuthenticator;
  /** Clients identified by their metadata document's URL; null when the server accepts registered clients only. */
  documents: ClientMetadataDocuments | null;
  /** While login is off, consent and code exchange refuse: no new token is handed out. */
  loginGate: LoginGate;
};

/**
 * Paths at the root of the issuer: the MCP authorization spec (2025-03-26, the revision the gateway
 * follows) has clients without metadata discovery fall back to exactly /authorize, /token and /register.
 */
export const oauthPaths = {
  metadata: '/.well-known/oauth-authorization-server',
  authorize: '/authorize',
  token: '/token',
  register: '/register',
  revoke: '/revoke',
  introspect: introspectionPath,
} as const;

const anyObject = z.record(z.string(), z.unknown());
/** How long after its rotation a refresh token's reuse counts as the client racing itself, not theft. */
const refreshReuseGraceMs = 30_000;
const optionalText = z.string().max(4000).optional();

const clientParams = z.object({ client_id: z.string().min(1).max(2000), redirect_uri: optionalText });
const authorizationParams = z.object({
  response_type: z.string(),
  code_challenge: z.string().regex(codeChallengeShape, 'must be an S256 challenge (43 base64url characters)'),
  code_challenge_method: z.literal('S256', 'only S256 is supported'),
  scope: optionalText,
  state: optionalText,
  resource: z.url().optional(),
});
const decisionParams = z.object({ team_id: uuidField('choose a team'), decision: z.enum(['approve', 'deny']) });

/** The parameters of an authorization request that the consent form carries back. */
const forwardedParams = [
  'client_id',
  'redirect_uri',
  'response_type',
  'code_challenge',
  'code_challenge_method',
  'scope',
  'state',
  'resource',
] as const;

function grantedScope(requested: string | undefined): string {
  const scopes = (requested ?? '').split(' ').filter(Boolean);
  const unknown = scopes.filter((s) => s !== mcpScope);
  if (unknown.length)
    throw new InvalidScopeError(`Unknown scope: ${unknown.join(' ')}; this server grants "${mcpScope}"`);
  return mcpScope;
}

function withoutFragment(resource: string | undefined): string | null {
  if (resource === undefined) return null;
  if (new URL(resource).hash) throw new InvalidTargetError('The resource must not have a fragment');
  return resource;
}

export function oauthServerRoutes(deps: OAuthServerDeps) {
  const { store, logger, lifetimes } = deps;
  const endpoint = (path: string) => new URL(path, deps.issuerUrl).href;
  const issuer = deps.issuerUrl.href.replace(/\/$/, '');

  /**
   * The client an authorization request names: a registered one, or one described by the metadata
   * document at its URL (fetched, checked, and recorded so codes and grants can refer to it).
   */
  async function findClient(clientId: string): Promise<ClientRow> {
    if (!isMetadataDocumentClientId(clientId)) {
      const client = await store.getClient(clientId);
      if (!client) throw new InvalidClientError('Unknown client_id; register the client first');
      return client;
    }
    if (!deps.documents) {
      throw new InvalidClientError('This server does not accept client metadata documents; register the client');
    }
    const described = await deps.documents.load(clientId);
    return store.saveDocumentClient({
      clientId,
      clientName: described.clientName,
      redirectUris: described.redirectUris,
      metadata: described.metadata,
    });
  }

  /** Client and redirect URI: errors here are shown, never redirected (RFC 6749 section 4.1.2.1). */
  async function resolveClient(input: Record<string, unknown>) {
    const parsed = clientParams.safeParse(input);
    if (!parsed.success) throw new InvalidRequestError(firstIssue(parsed.error));
    const client = await findClient(parsed.data.client_id);
    const requested = parsed.data.redirect_uri;
    if (requested !== undefined) {
      if (!client.redirect_uris.some((registered) => redirectUriMatches(requested, registered))) {
        throw new InvalidRequestError('redirect_uri is not registered for this client');
      }
      return { client, redirectUri: requested };
    }
    if (client.redirect_uris.length !== 1) {
      throw new InvalidRequestError('redirect_uri is required: the client registered several');
    }
    return { client, redirectUri: client.redirect_uris[0] as string };
  }

  /** Everything else of the request: errors here go back to the client on its redirect URI. */
  function parseAuthorization(input: Record<string, unknown>) {
    const parsed = authorizationParams.safeParse(input);
    if (!parsed.success) throw new InvalidRequestError(firstIssue(parsed.error));
    if (parsed.data.response_type !== 'code')
      throw new UnsupportedResponseTypeError('Only response_type=code is supported');
    return { ...parsed.data, scope: grantedScope(parsed.data.scope), resource: withoutFragment(parsed.data.resource) };
  }

  function redirectWithError(reply: FastifyReply, redirectUri: string, error: OAuthError, state: unknown) {
    const url = new URL(redirectUri);
    url.searchParams.set('error', error.errorCode);
    url.searchParams.set('error_description', error.message);
    if (typeof state === 'string') url.searchParams.set('state', state);
    url.searchParams.set('iss', issuer);
    return reply.header('cache-control', 'no-store').redirect(url.href, 302);
  }

  /** Client authentication at the token and revocation endpoints: Basic header or form fields. */
  async function authenticateClient(request: FastifyRequest, body: Record<string, unknown>): Promise<ClientRow> {
    let clientId = typeof body.client_id === 'string' ? body.client_id : undefined;
    let secret = typeof body.client_secret === 'string' ? body.client_secret : undefined;
    const header = request.headers.authorization;
    if (header?.toLowerCase().startsWith('basic ')) {
      const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon < 0) throw new InvalidClientError('Malformed Basic credentials');
      clientId = decodeURIComponent(decoded.slice(0, colon));
      secret = decodeURIComponent(decoded.slice(colon + 1));
    }
    if (!clientId) throw new InvalidClientError('client_id is required');
    const client = await store.getClient(clientId);
    if (!client) throw new InvalidClientError('Unknown client');
    if (client.token_endpoint_auth_method !== 'none') {
      const expected = client.client_secret_hash;
      if (!secret || !expected || !isSecretOf('clientSecret', secret) || !hashSecret(secret).equals(expected)) {
        throw new InvalidClientError('Client authentication failed');
      }
    }
    return client;
  }

  function issueTokens(client: ClientRow, now: number) {
    const accessToken = createSecret('accessToken');
    const accessExpires = new Date(now + lifetimes.accessTokenSeconds * 1000);
    const grantTypes = (client.metadata.grant_types as string[] | undefined) ?? ['authorization_code'];
    const refreshToken = grantTypes.includes('refresh_token') ? createSecret('refreshToken') : undefined;
    const refreshExpires = new Date(now + lifetimes.refreshTokenSeconds * 1000);
    const tokens: NewToken[] = [{ hash: hashSecret(accessToken), kind: 'access', expiresAt: accessExpires }];
    if (refreshToken) tokens.push({ hash: hashSecret(refreshToken), kind: 'refresh', expiresAt: refreshExpires });
    return {
      tokens,
      grantExpiresAt: refreshToken ? refreshExpires : accessExpires,
      reply: (scope: string) => ({
        access_token: accessToken,
        token_type: 'Bearer' as const,
        expires_in: lifetimes.accessTokenSeconds,
        scope,
        ...(refreshToken ? { refresh_token: refreshToken } : {}),
      }),
    };
  }

  const tokenReply = z.looseObject({ access_token: z.string(), token_type: z.string(), expires_in: z.number() });

  return [
    defineRoute({
      method: 'GET',
      url: oauthPaths.metadata,
      summary: 'OAuth 2.0 authorization server metadata (RFC 8414), for MCP clients',
      tags: ['oauth'],
      access: publicAccess,
      responseShape: 'bare',
      response: anyObject,
      async handler(): Promise<OAuthMetadata & Record<string, unknown>> {
        return {
          issuer,
          // Every authorization response names this issuer in `iss` (RFC 9207), errors included.
          authorization_response_iss_parameter_supported: true,
          client_id_metadata_document_supported: deps.documents !== null,
          authorization_endpoint: endpoint(oauthPaths.authorize),
          token_endpoint: endpoint(oauthPaths.token),
          registration_endpoint: endpoint(oauthPaths.register),
          revocation_endpoint: endpoint(oauthPaths.revoke),
          revocation_endpoint_auth_methods_supported: [...supportedAuthMethods],
          introspection_endpoint: endpoint(oauthPaths.introspect),
          introspection_endpoint_auth_methods_supported: ['bearer'],
          scopes_supported: [mcpScope],
          response_types_supported: ['code'],
          grant_types_supported: supportedGrantTypes,
          token_endpoint_auth_methods_supported: [...supportedAuthMethods],
          code_challenge_methods_supported: ['S256'],
        };
      },
    }),
    defineRoute({
      method: 'POST',
      url: oauthPaths.register,
      summary: 'Dynamic client registration (RFC 7591)',
      tags: ['oauth'],
      access: publicAccess,
      responseShape: 'bare',
      successStatus: 201,
      response: anyObject,
      handler: (input) =>
        answerOAuth(input.request, input.reply, async () => {
          const { request } = input;
          // RFC 7591 section 2: without a method the client means client_secret_basic.
          const accepted = acceptClientMetadata(request.body, {
            defaultAuthMethod: 'client_secret_basic',
            authMethods: supportedAuthMethods,
          });
          const method = accepted.authMethod;
          const secret = method === 'none' ? undefined : createSecret('clientSecret');
          const clientId = `orb_client_${crypto.randomUUID()}`;
          const stored = accepted.metadata;
          const client = await store.inTransaction(async (tx) => {
            const registered = await tx.registerClient({
              clientId,
              secretHash: secret ? hashSecret(secret) : null,
              clientName: accepted.clientName,
              redirectUris: accepted.redirectUris,
              authMethod: method,
              metadata: stored,
            });
            await tx.audit({
              ...auditContextOf(input),
              action: 'oauth.client_registered',
              target: { kind: 'oauth_client', id: clientId },
              details: { client_name: accepted.clientName, redirect_uris: accepted.redirectUris, auth_method: method },
            });
            return registered;
          });
          logger.info({ event: 'oauth.client_registered', client_id: clientId, method }, 'OAuth client registered');
          return {
            ...stored,
            client_id: client.client_id,
            client_id_issued_at: Math.floor(client.created_at / 1000),
            ...(secret ? { client_secret: secret, client_secret_expires_at: 0 } : {}),
          };
        }),
    }),
    defineRoute({
      method: 'GET',
      url: oauthPaths.authorize,
      summary: 'Authorization endpoint: the logged-in user chooses a team and allows the client (HTML page)',
      tags: ['oauth'],
      access: signedIn,
      responseShape: 'bare',
      response: z.string(),
      handler: ({ request, reply }) =>
        answerOAuth(
          request,
          reply,
          async () => {
            const input = (request.query ?? {}) as Record<string, unknown>;
            const { client, redirectUri } = await resolveClient(input);
            try {
              parseAuthorization(input);
              if (!(await deps.loginGate.isEnabled())) throw new AccessDeniedError(loginDisabledMessage);
            } catch (error) {
              if ((error as OAuthError).errorCode) {
                return redirectWithError(reply, redirectUri, error as OAuthError, input.state) as never;
              }
              throw error;
            }
            const session = sessionOf(request);
            if (session.memberships.length === 0) {
              const error = new AccessDeniedError('You are not a member of any team');
              return redirectWithError(reply, redirectUri, error, input.state) as never;
            }
            const params: Record<string, string> = { redirect_uri: redirectUri };
            for (const name of forwardedParams) {
              const value = input[name];
              if (typeof value === 'string') params[name] = value;
            }
            params.redirect_uri = redirectUri;
            const html = renderConsentPage({
              clientName: client.client_name ?? client.client_id,
              ...(isMetadataDocumentClientId(client.client_id) ? { metadataDocumentUrl: client.client_id } : {}),
              redirectUri,
              userEmail: session.user.email,
              teams: session.memberships.map((m) => ({ id: m.team_id, name: m.team_name, slug: m.team_slug })),
              selectedTeamId: typeof input.team_id === 'string' ? input.team_id : undefined,
              params,
            });
            return reply
              .header('cache-control', 'no-store')
              .header('x-frame-options', 'DENY')
              .header('content-security-policy', "default-src 'none'; frame-ancestors 'none'")
              .header('referrer-policy', 'no-referrer')
              .type('text/html; charset=utf-8')
              .send(html) as never;
          },
          { invalidClientStatus: 400 },
        ),
    }),
    defineRoute({
      method: 'POST',
      url: oauthPaths.authorize,
      summary: "Authorization endpoint: the consent form's answer; redirects to the client with a code",
      tags: ['oauth'],
      access: signedIn,
      responseShape: 'bare',
      response: z.string(),
      handler: (route) =>
        answerOAuth(
          route.request,
          route.reply,
          async () => {
            const { request, reply } = route;
            const input = (request.body ?? {}) as Record<string, unknown>;
            const { client, redirectUri } = await resolveClient(input);
            const consent = (granted: boolean, teamId: string | null, reason: string | null = null) => ({
              ...auditContextOf(route),
              action: granted ? ('oauth.consent_granted' as const) : ('oauth.consent_denied' as const),
              target: { kind: 'oauth_client', id: client.client_id },
              team_id: teamId,
              ...(reason ? { outcome: 'failure' as const, reason } : {}),
              details: { client_name: client.client_name, redirect_uri: redirectUri },
            });
            try {
              const authorization = parseAuthorization(input);
              if (!(await deps.loginGate.isEnabled())) throw new AccessDeniedError(loginDisabledMessage);
              const decision = decisionParams.safeParse(input);
              if (!decision.success) throw new InvalidRequestError(firstIssue(decision.error));
              if (decision.data.decision === 'deny') {
                await store.audit(consent(false, decision.data.team_id ?? null));
                throw new AccessDeniedError('The user denied the request');
              }
              const session = sessionOf(request);
              const teamId = decision.data.team_id;
              if (!(await store.isMember(session.user.id, teamId))) {
                await store.audit(consent(true, null, 'not_a_member'));
                logger.warn(
                  {
                    event: 'oauth.authorize_refused',
                    user_id: session.user.id,
                    team_id: teamId,
                    client_id: client.client_id,
                  },
                  'security: authorization for a team the user is not a member of',
                );
                throw new AccessDeniedError('You are not a member of this team');
              }
              const code = createSecret('authorizationCode');
              await store.inTransaction(async (tx) => {
                await tx.createCode({
                  codeHash: hashSecret(code),
                  clientId: client.client_id,
                  userId: session.user.id,
                  teamId,
                  redirectUri,
                  codeChallenge: authorization.code_challenge,
                  scope: authorization.scope,
                  resource: authorization.resource,
                  expiresAt: new Date(deps.now() + lifetimes.authorizationCodeSeconds * 1000),
                });
                await tx.audit(consent(true, teamId));
              });
              const url = new URL(redirectUri);
              url.searchParams.set('code', code);
              if (authorization.state !== undefined) url.searchParams.set('state', authorization.state);
              url.searchParams.set('iss', issuer);
              return reply.header('cache-control', 'no-store').redirect(url.href, 302) as never;
            } catch (error) {
              if ((error as OAuthError).errorCode) {
                return redirectWithError(reply, redirectUri, error as OAuthError, input.state) as never;
              }
              throw error;
            }
          },
          { invalidClientStatus: 400 },
        ),
    }),
    defineRoute({
      method: 'POST',
      url: oauthPaths.token,
      summary: 'Token endpoint: authorization code (PKCE S256) or refresh token for an access token',
      tags: ['oauth'],
      access: publicAccess,
      responseShape: 'bare',
      response: tokenReply,
      handler: ({ request, reply }) =>
        answerOAuth(request, reply, async () => {
          const body = (request.body ?? {}) as Record<string, unknown>;
          const client = await authenticateClient(request, body);
          const now = deps.now();
          reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
          if (body.grant_type === 'authorization_code') {
            const parsed = z
              .object({
                code: z.string().max(200),
                code_verifier: z.string(),
                redirect_uri: optionalText,
                resource: z.url().optional(),
              })
              .safeParse(body);
            if (!parsed.success) throw new InvalidRequestError(firstIssue(parsed.error));
            if (!(await deps.loginGate.isEnabled())) throw new InvalidGrantError(loginDisabledMessage);
            if (!codeVerifierShape.test(parsed.data.code_verifier)) {
              throw new InvalidRequestError('code_verifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~');
            }
            const codeHash = hashSecret(parsed.data.code);
            const code = isSecretOf('authorizationCode', parsed.data.code) ? await store.consumeCode(codeHash) : null;
            if (!code) throw new InvalidGrantError('Unknown authorization code');
            if (code.used_at !== null) {
              // A code used twice may have been stolen: what the first use issued is revoked too.
              if (code.grant_id) await store.revokeGrantById(code.grant_id);
              logger.warn(
                { event: 'oauth.code_reused', client_id: client.client_id, grant_id: code.grant_id },
                'security: authorization code used twice; its grant is revoked',
              );
              throw new InvalidGrantError('The authorization code was already used');
            }
            if (code.client_id !== client.client_id)
              throw new InvalidGrantError('The code was issued to another client');
            if (code.expires_at <= now) throw new InvalidGrantError('The authorization code has expired');
            if (parsed.data.redirect_uri !== undefined && parsed.data.redirect_uri !== code.redirect_uri) {
              throw new InvalidGrantError('redirect_uri differs from the authorization request');
            }
            if (!pkceS256Matches(parsed.data.code_verifier, code.code_challenge)) {
              throw new InvalidGrantError('code_verifier does not match the code challenge');
            }
            if (
              parsed.data.resource !== undefined &&
              code.resource !== null &&
              parsed.data.resource !== code.resource
            ) {
              throw new InvalidTargetError('resource differs from the authorization request');
            }
            if (!(await store.isMember(code.user_id, code.team_id))) {
              throw new InvalidGrantError('The user is no longer a member of the team');
            }
            const issued = issueTokens(client, now);
            const grantId = await store.createGrant({
              kind: 'oauth',
              userId: code.user_id,
              teamId: code.team_id,
              clientId: client.client_id,
              name: client.client_name ?? client.client_id,
              scope: code.scope,
              resource: code.resource,
              expiresAt: issued.grantExpiresAt,
              tokens: issued.tokens,
              codeHash,
            });
            logger.info(
              {
                event: 'oauth.token_issued',
                grant_id: grantId,
                client_id: client.client_id,
                user_id: code.user_id,
                team_id: code.team_id,
              },
              'OAuth tokens issued',
            );
            return issued.reply(code.scope);
          }
          if (body.grant_type === 'refresh_token') {
            const parsed = z.object({ refresh_token: z.string().max(200), scope: optionalText }).safeParse(body);
            if (!parsed.success) throw new InvalidRequestError(firstIssue(parsed.error));
            if (parsed.data.scope !== undefined) grantedScope(parsed.data.scope);
            if (!isSecretOf('refreshToken', parsed.data.refresh_token))
              throw new InvalidGrantError('Unknown refresh token');
            const issued = issueTokens(client, now);
            const result = await store.rotateRefreshToken({
              hash: hashSecret(parsed.data.refresh_token),
              clientId: client.client_id,
              now: new Date(now),
              tokens: issued.tokens,
              grantExpiresAt: issued.grantExpiresAt,
              reuseGraceMs: refreshReuseGraceMs,
            });
            if (result.kind !== 'rotated') {
              if (result.kind === 'reused') {
                logger.warn(
                  { event: 'oauth.refresh_reused', client_id: client.client_id },
                  'security: refresh token used after rotation; its grant is revoked',
                );
              }
              throw new InvalidGrantError(
                {
                  unknown: 'Unknown refresh token',
                  reused: 'The refresh token was already used or revoked',
                  raced: 'The refresh token was just used by another request of this client',
                  expired: 'The refresh token has expired',
                  wrong_client: 'The refresh token was issued to another client',
                  not_member: 'The user is no longer a member of the team',
                }[result.kind],
              );
            }
            return issued.reply(result.scope);
          }
          throw new UnsupportedGrantTypeError('grant_type must be authorization_code or refresh_token');
        }),
    }),
    defineRoute({
      method: 'POST',
      url: oauthPaths.revoke,
      summary: 'Token revocation (RFC 7009): a client ends its grant with one of its tokens',
      tags: ['oauth'],
      access: publicAccess,
      responseShape: 'bare',
      response: anyObject,
      handler: (input) =>
        answerOAuth(input.request, input.reply, async () => {
          const { request } = input;
          const body = (request.body ?? {}) as Record<string, unknown>;
          const client = await authenticateClient(request, body);
          if (typeof body.token !== 'string' || body.token.length === 0)
            throw new InvalidRequestError('token is required');
          const grant = await store.findGrantOfToken(hashSecret(body.token));
          // RFC 7009 section 2.2: an unknown token, or another client's, is answered 200 all the same.
          if (grant && grant.client_id === client.client_id) {
            await store.inTransaction(async (tx) => {
              await tx.revokeGrantById(grant.grant_id);
              await tx.audit({
                ...auditContextOf(input),
                actor: { kind: 'client', id: client.client_id, email: null, name: client.client_name },
                action: 'oauth.token_revoked',
                target: { kind: 'oauth_grant', id: grant.grant_id },
                details: { client_id: client.client_id },
              });
            });
          }
          return {};
        }),
    }),
    defineRoute({
      method: 'POST',
      url: oauthPaths.introspect,
      summary: 'Token introspection (RFC 7662) for satellites: is this bearer token active, for whom and which team',
      tags: ['oauth'],
      // Not a user route: the caller is a resource server, authenticated by the handler (see
      // resourceServerAuthenticator.ts), which is why the access kind itself is public.
      access: publicAccess,
      responseShape: 'bare',
      response: anyObject,
      handler: ({ request, reply }) =>
        answerOAuth(request, reply, async (): Promise<IntrospectionResponse> => {
          const caller = await deps.authenticateResourceServer(request);
          if (!caller) {
            reply.header('www-authenticate', 'Bearer realm="introspection"');
            return sendOAuthError(
              reply,
              new InvalidClientError("Introspection needs the satellite's API key: Authorization: Bearer <api key>"),
            ) as never;
          }
          reply.header('cache-control', 'no-store');
          const body = (request.body ?? {}) as Record<string, unknown>;
          if (typeof body.token !== 'string' || body.token.length === 0)
            throw new InvalidRequestError('token is required');
          const token = body.token;
          const inactive = { active: false as const };
          if (!isSecretOf('accessToken', token) && !isSecretOf('personalToken', token)) return inactive;
          const found = await store.findActiveAccessToken(hashSecret(token), new Date(deps.now()));
          if (!found) return inactive;
          // A team satellite learns nothing about another team's tokens.
          if (caller.teamId !== null && caller.teamId !== found.team_id) return inactive;
          return introspectionResponse.parse({
            active: true,
            sub: found.user_id,
            team_id: found.team_id,
            scope: found.scope,
            exp: Math.floor(found.expires_at / 1000),
            iat: Math.floor(found.created_at / 1000),
            client_id: found.client_id ?? 'personal_access_token',
            token_type: 'Bearer',
            token_kind: found.grant_kind,
            ...(found.resource ? { aud: found.resource } : {}),
          });
        }),
    }),
  ];
}
