import type { Bus } from '@orbital/bus';
import { orbitalClientMetadata, remoteOAuthPaths, remoteOAuthSubjects as s } from '@orbital/contracts';
import { AppError } from '@orbital/errors';
import { z } from 'zod';
import { defineRoute } from '../http/defineRoute.ts';
import { installationOf, installationParams, satelliteParams, uuidOf } from '../http/pathParams.ts';
import { proxyRoute, relayTable, subjectTable } from '../http/proxyRoute.ts';
import { publicAccess } from '../http/routeAccess.ts';
import { installationsPath } from './installationRoutes.ts';

/**
 * The browser that starts a flow keeps its binding in this cookie, sent back only to the callback:
 * SameSite=Lax, because the authorization server's redirect is a top-level navigation from another site
 * (the Strict session cookie is not sent on it), and the binding is what proves the browser finishing
 * the flow is the one that started it.
 */
const bindingCookie = 'orbital_mcp_oauth';
const bindingCookieOptions = {
  httpOnly: true,
  secure: true,
  sameSite: 'lax',
  path: remoteOAuthPaths.callback,
} as const;

const callbackQuery = z
  .object({
    state: z.string().max(512).optional(),
    code: z.string().max(4096).optional(),
    iss: z.string().max(2000).optional(),
    error: z.string().max(200).optional(),
    error_description: z.string().max(2000).optional(),
  })
  .passthrough();

const disconnectQuery = z.object({
  /** `me` (default), `team`, or a member's user id (team admins). */
  owner: z.union([z.literal('me'), z.literal('team'), uuidOf('user')]).default('me'),
});

function ownerOf(owner: string): 'me' | 'team' | { user_id: string } {
  return owner === 'me' || owner === 'team' ? owner : { user_id: owner };
}

/**
 * The MCP authorization flow for remote servers, HTTP side: the console starts it (the answer is the
 * authorization server's URL), the authorization server sends the browser back to the callback, and
 * satellites ask for the token of a call. `publicUrl` is where people and authorization servers reach
 * this gateway (OAUTH_ISSUER_URL): the callback, the client metadata document and the console's links
 * hang off it.
 */
export function remoteOAuthRoutes(bus: Bus, options: { publicUrl: string }) {
  const base = options.publicUrl.replace(/\/+$/, '');
  const redirectUri = `${base}${remoteOAuthPaths.callback}`;
  const clientMetadataUrl = `${base}${remoteOAuthPaths.clientMetadata}`;
  const relay = relayTable(bus, ['installations']);
  const serve = subjectTable(bus, ['installations']);
  const consolePage = (teamId: string, installationId: string) =>
    `/teams/${encodeURIComponent(teamId)}/installations/${encodeURIComponent(installationId)}`;
  return [
    relay(
      s.getStatus,
      `GET ${installationsPath}/oauth`,
      "Whether the installation's calls carry a token for you, and the authorizations you may see",
      { params: installationParams, toRequest: installationOf },
    ),
    serve(
      s.start,
      `POST ${installationsPath}/oauth/authorize`,
      "Start authorizing Orbital at the server's authorization server (yours, or the team's for team admins): answers the URL to send the browser to",
      {
        params: installationParams,
        response: z.object({ authorization_url: z.string(), expires_at: z.string() }),
        toRequest: (input) => ({
          ...installationOf(input),
          redirect_uri: redirectUri,
          client_metadata_url: clientMetadataUrl,
        }),
        async handler({ reply }, start) {
          const started = await start();
          reply.setCookie(bindingCookie, started.browser_binding, {
            ...bindingCookieOptions,
            expires: new Date(started.expires_at),
          });
          return { authorization_url: started.authorization_url, expires_at: started.expires_at };
        },
      },
    ),
    relay(
      s.disconnect,
      `DELETE ${installationsPath}/oauth`,
      "Forget an authorization and revoke its tokens: yours (owner=me), or as a team admin the team's (owner=team) or a member's (owner=<user id>)",
      {
        params: installationParams,
        querystring: disconnectQuery,
        toRequest: (input) => ({ ...installationOf(input), owner: ownerOf(input.query.owner) }),
      },
    ),
    serve(
      s.complete,
      `GET ${remoteOAuthPaths.callback}`,
      "The authorization server's redirect back (code or error, state, iss): completes the flow and sends the browser to the installation's page",
      {
        querystring: callbackQuery,
        responseShape: 'bare',
        response: z.string(),
        toRequest: ({ query, request }) => ({
          state: query.state ?? '',
          // The binding cookie of the browser that started the flow; none is no binding.
          browser_binding: request.cookies?.[bindingCookie] ?? '',
          ...(query.code !== undefined ? { code: query.code } : {}),
          ...(query.iss !== undefined ? { iss: query.iss } : {}),
          ...(query.error !== undefined ? { error: query.error } : {}),
          ...(query.error_description !== undefined ? { error_description: query.error_description } : {}),
        }),
        async handler({ reply }, complete) {
          reply.clearCookie(bindingCookie, bindingCookieOptions);
          reply.header('cache-control', 'no-store');
          try {
            const outcome = await complete();
            const page = new URL(consolePage(outcome.team_id, outcome.installation_id), base);
            page.searchParams.set('oauth', outcome.outcome);
            page.searchParams.set('message', outcome.message);
            return reply.redirect(page.pathname + page.search, 303) as never;
          } catch (error) {
            if (!(error instanceof AppError) || error.code === 'unavailable' || error.code === 'internal') throw error;
            const page = new URL('/installations', base);
            page.searchParams.set('oauth', 'failed');
            page.searchParams.set('message', `${error.message}. ${error.instructions ?? ''}`.trim());
            return reply.redirect(page.pathname + page.search, 303) as never;
          }
        },
      },
    ),
    defineRoute({
      method: 'GET',
      url: remoteOAuthPaths.clientMetadata,
      summary: "Orbital's OAuth client ID metadata document, its client id at authorization servers that accept one",
      tags: ['installations'],
      access: publicAccess,
      responseShape: 'bare',
      response: z.record(z.string(), z.unknown()),
      handler: async ({ reply }) => {
        reply.header('cache-control', 'public, max-age=3600');
        return { client_id: clientMetadataUrl, client_uri: base, ...orbitalClientMetadata(redirectUri) };
      },
    }),
    // A satellite's route, tagged with theirs.
    proxyRoute(bus, s.tokenForSatellite, {
      method: 'POST',
      url: '/api/satellites/:id/oauth/token',
      summary:
        'The access token for one call of a remote server that needs OAuth: the calling user’s or the team’s, refreshed when about to expire; or where to authorize',
      tags: ['satellites'],
      params: satelliteParams,
      body: s.tokenForSatellite.request.omit({ satellite_id: true, console_url: true }),
      toRequest: ({ params, body }) => ({ ...body, satellite_id: params.id, console_url: base }),
    }),
  ];
}
