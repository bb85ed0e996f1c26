import { errorCodeList } from '@orbital/errors';
import type { Access } from './routeAccess.ts';

/**
 * What the OpenAPI document says of each route beyond its schemas, so a client generator gets a usable
 * client: a stable operation id, the credentials the route takes, and the error answers it can give
 * (every error is the same envelope, with the status of its code).
 */

/** The ways to authenticate, as `components.securitySchemes`. */
export const securitySchemes = {
  sessionCookie: {
    type: 'apiKey',
    in: 'cookie',
    name: 'session',
    description: 'The session cookie POST /api/auth/login sets (HttpOnly, SameSite=Strict): what the web console uses.',
  },
  bearerAuth: {
    type: 'http',
    scheme: 'bearer',
    description: 'The session token POST /api/auth/login answers, as Authorization: Bearer <token>: for scripts.',
  },
  satelliteKey: {
    type: 'http',
    scheme: 'bearer',
    description:
      "A satellite's API key (<key id>.<secret>) from its registration; it reaches that satellite's own routes only.",
  },
} as const;

type Security = Array<Partial<Record<keyof typeof securitySchemes, string[]>>>;

const person: Security = [{ sessionCookie: [] }, { bearerAuth: [] }];

/** The credentials an access reads the caller's identity from (createAccessResolver). */
export function securityOf(access: Access): Security {
  if (access.public) return [];
  return [...(access.satellite ? [{ satelliteKey: [] }] : []), ...(access.users ? person : [])];
}

/** `GET /api/teams/:teamId/members` -> `getTeamsByTeamIdMembers`: unique per method and path, stable. */
export function operationIdOf(method: string, url: string): string {
  const words = url
    .split('/')
    .filter((segment) => segment !== '' && segment !== 'api')
    .flatMap((segment) =>
      segment.startsWith(':') ? ['by', ...segment.slice(1).split(/[^A-Za-z0-9]+/)] : segment.split(/[^A-Za-z0-9]+/),
    )
    .filter(Boolean);
  return [method.toLowerCase(), ...words.map((w) => w[0]?.toUpperCase() + w.slice(1))].join('');
}

const errorEnvelope = {
  type: 'object',
  required: ['success', 'error'],
  properties: {
    success: { type: 'boolean', enum: [false] },
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        // Every code of the closed registry: a route answers the ones its status allows (403 may be
        // login_disabled, 409 mail_disabled), so the document lists them all rather than a chosen few.
        code: { type: 'string', enum: errorCodeList },
        message: { type: 'string' },
        details: { description: 'Per-field problems ({path, message}) for validation_failed; other facts otherwise.' },
        instructions: { type: 'string', description: 'What to do next (satellite and registration errors).' },
      },
    },
  },
} as const;

const errorAnswer = (description: string) => ({ description, ...errorEnvelope });

/** The error answers a route can give, each with the one envelope. */
export function errorResponsesOf(def: {
  access: Access;
  body?: unknown;
  querystring?: unknown;
  params?: unknown;
}): Record<number, unknown> {
  const responses: Record<number, unknown> = {};
  if (def.body || def.querystring || def.params)
    responses[400] = errorAnswer('validation_failed: a field is not valid');
  if (!def.access.public) responses[401] = errorAnswer('unauthenticated: no valid credential');
  if (!def.access.public && !(def.access.users?.kind === 'signed_in' && !def.access.satellite)) {
    responses[403] = errorAnswer('forbidden: the credential does not allow this');
  }
  if (def.params) responses[404] = errorAnswer('not_found: nothing at this id (or nothing the caller may see)');
  responses[500] = errorAnswer('internal: a bug; the request id in x-request-id finds it in the logs');
  responses[503] = errorAnswer('unavailable: a dependency is down; retry later');
  return responses;
}
