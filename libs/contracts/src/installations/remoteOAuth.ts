import { z } from 'zod';
import { satelliteAccess, teamAccess } from '../access/subjectAccess.ts';
import { teamIdField, uuidField } from '../ids.ts';
import { isoTimestamp } from '../isoTimestamp.ts';
import { defineSubject } from '../subject.ts';

const uuid = uuidField();

/** One OAuth scope token (RFC 6749 section 3.3: printable ASCII but space, `"` and `\`). */
const scopeToken = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[\x21\x23-\x5B\x5D-\x7E]+$/, 'an OAuth scope: printable characters, no space, quote or backslash');

/**
 * A template's statement that its remote server is an OAuth 2.1 protected resource (the MCP
 * authorization specification): each call carries an access token Orbital obtained by the
 * authorization-code flow, per user (`user`: every person authorizes for themself and their calls
 * carry their own token) or once for the team (`team`: a team admin authorizes, every call carries
 * that token). `scopes` are asked for; without them the server's advertised scopes are.
 */
export const templateOAuth = z
  .object({
    token_scope: z.enum(['user', 'team']),
    scopes: z.array(scopeToken).max(50).optional(),
  })
  .strict();
export type TemplateOAuth = z.infer<typeof templateOAuth>;

/** One authorization Orbital holds for an installation, as the console shows it (never the token). */
export const oauthConnectionView = z.object({
  /** `team` for the team's token, else the user whose token it is. */
  owner: z.union([z.literal('team'), z.object({ user_id: z.string() })]),
  authorized_by: z.string(),
  authorized_at: isoTimestamp,
  /** When the access token ends; it is refreshed before then while a refresh token is held. */
  expires_at: isoTimestamp.nullable(),
  refreshed_at: isoTimestamp.nullable(),
  scope: z.string().nullable(),
  authorization_server: z.string(),
});
export type OAuthConnectionView = z.infer<typeof oauthConnectionView>;

export const oauthStatusView = z.object({
  installation_id: uuid,
  token_scope: z.enum(['user', 'team']),
  /** Whether calls made for the caller have a token: theirs (per-user) or the team's. */
  connected: z.boolean(),
  /** The caller's own authorization and the team's; a team admin sees every member's as well. */
  connections: z.array(oauthConnectionView),
});
export type OAuthStatusView = z.infer<typeof oauthStatusView>;

/**
 * What Orbital says about itself as an OAuth client of remote servers: in a dynamic registration, and
 * (with `client_id`, the document's own URL) in its client ID metadata document. A public client: the
 * code is bound to its PKCE verifier, and the redirect goes to gateway-api's callback only.
 */
export function orbitalClientMetadata(redirectUri: string) {
  return {
    client_name: 'Orbital',
    redirect_uris: [redirectUri],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    application_type: 'web',
  };
}

/** gateway-api's paths of the flow, relative to its public URL. */
export const remoteOAuthPaths = {
  callback: '/api/mcp/oauth/callback',
  clientMetadata: '/api/mcp/oauth/client-metadata.json',
} as const;

const installationRef = { team_id: teamIdField, installation_id: uuid };

/**
 * The answer a satellite gets for a call: a token, or why there is none and where a person goes to
 * authorize (the installation's page in the console). Never cached on disk by the satellite.
 */
export const satelliteTokenReply = z.discriminatedUnion('status', [
  z.object({
    status: z.literal('ok'),
    access_token: z.string(),
    token_type: z.string(),
    /** Seconds since the epoch, or null when the authorization server did not say. */
    expires_at: z.number().int().nullable(),
  }),
  z.object({
    status: z.literal('authorization_required'),
    message: z.string(),
    authorize_url: z.string(),
  }),
]);
export type SatelliteTokenReply = z.infer<typeof satelliteTokenReply>;

export const oauthFlowOutcome = z.object({
  team_id: z.string(),
  installation_id: uuid,
  outcome: z.enum(['connected', 'refused', 'failed']),
  message: z.string(),
});
export type OAuthFlowOutcome = z.infer<typeof oauthFlowOutcome>;

/**
 * The MCP authorization flow for installations of remote servers that need OAuth. gateway-api runs the
 * HTTP side (the console's start, the authorization server's redirect back, the satellite's token
 * request); the installations service discovers, registers, exchanges, stores (encrypted), refreshes and
 * revokes.
 */
export const remoteOAuthSubjects = {
  getStatus: defineSubject({
    subject: 'installations.oauth.get',
    service: 'installations',
    access: teamAccess('installations.view'),
    description:
      "Whether the installation's calls have a token for the caller, and the authorizations the caller may see (team members).",
    request: z.object(installationRef).strict(),
    reply: oauthStatusView,
  }),
  start: defineSubject({
    subject: 'installations.oauth.start',
    service: 'installations',
    access: teamAccess('installations.view'),
    description:
      "Starts the authorization-code flow (PKCE, resource indicator) for the caller's token, or for the team's token (team admins): discovers the server's authorization server, registers Orbital there when needed, and answers the URL to send the browser to.",
    request: z
      .object({
        ...installationRef,
        /** Where the authorization server sends the browser back: gateway-api's callback. */
        redirect_uri: z.url({ protocol: /^https?$/ }),
        /** Orbital's client ID metadata document, used as client id where the server accepts one (https only). */
        client_metadata_url: z.url({ protocol: /^https?$/ }),
      })
      .strict(),
    reply: z.object({
      authorization_url: z.string(),
      /** Bound to the browser that started the flow (a cookie): the callback must present it. */
      browser_binding: z.string(),
      expires_at: isoTimestamp,
    }),
  }),
  complete: defineSubject({
    subject: 'installations.oauth.complete',
    service: 'installations',
    // The authorization server's redirect carries no session (it comes from another site); the single-use
    // state and the browser binding of the flow are what is checked.
    access: { public: true },
    description:
      'Completes a flow from the authorization server redirect: exchanges the code (PKCE verifier, issuer checked) and stores the tokens encrypted; a refused consent stores nothing.',
    request: z
      .object({
        state: z.string().min(1).max(512),
        browser_binding: z.string().max(512),
        code: z.string().min(1).max(4096).optional(),
        iss: z.string().max(2000).optional(),
        error: z.string().max(200).optional(),
        error_description: z.string().max(2000).optional(),
      })
      .strict(),
    reply: oauthFlowOutcome,
  }),
  disconnect: defineSubject({
    subject: 'installations.oauth.disconnect',
    service: 'installations',
    access: teamAccess('installations.view'),
    description:
      "Forgets an authorization and revokes its tokens at the authorization server: the caller's own, or (team admins) the team's or a member's.",
    request: z
      .object({
        ...installationRef,
        owner: z.union([z.literal('team'), z.literal('me'), z.object({ user_id: z.string().min(1).max(200) })]),
      })
      .strict(),
    reply: z.object({ deleted: z.boolean() }),
  }),
  tokenForSatellite: defineSubject({
    subject: 'installations.oauth.token_for_satellite',
    service: 'installations',
    access: satelliteAccess(),
    description:
      "The access token a satellite sends with one call of a remote server: the calling user's (per-user) or the team's, refreshed first when it is about to expire or the server refused it. Satellites of the installation's team only.",
    request: z
      .object({
        satellite_id: z.string().min(1),
        installation_id: uuid,
        /** The user the call is made for (from the client's token); null when the satellite does not know. */
        user_id: z.string().min(1).max(200).nullable(),
        /** `discovery`: any valid token of the installation will do (listing tools before a user calls). */
        purpose: z.enum(['call', 'discovery']),
        /** The server refused the token last handed out: refresh it now. */
        refused: z.boolean().default(false),
        /** Where people authorize: the console's base URL as gateway-api knows it. */
        console_url: z.url(),
      })
      .strict(),
    reply: satelliteTokenReply,
  }),
} as const;
