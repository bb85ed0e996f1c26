import { z } from 'zod';

/**
 * The one scope of tokens for satellites: use the MCP gateway (`/mcp`) with the tools of the token's
 * team. Finer scopes can be added later without changing the shape of anything below.
 */
export const mcpScope = 'mcp';

/** Where a satellite (or any resource server) asks gateway-api whether a bearer token is valid. */
export const introspectionPath = '/introspect';

/**
 * The RFC 7662 introspection answer, as gateway-api sends it and satellites read it. An inactive
 * token says nothing more (RFC 7662 section 2.2: no hint why). `sub` is the user's id, `team_id` the
 * one team the token was issued for; `aud` is the RFC 8707 resource the token was issued for, absent
 * for personal access tokens, which are valid at any satellite that serves their team.
 */
export const introspectionResponse = z.discriminatedUnion('active', [
  z.object({ active: z.literal(false) }),
  z.object({
    active: z.literal(true),
    sub: z.string(),
    team_id: z.string(),
    scope: z.string(),
    /** Seconds since the epoch. */
    exp: z.number().int(),
    iat: z.number().int().optional(),
    client_id: z.string(),
    token_type: z.literal('Bearer'),
    aud: z.string().optional(),
    /** `oauth` (authorization-code flow) or `personal` (a personal access token). */
    token_kind: z.enum(['oauth', 'personal']),
  }),
]);
export type IntrospectionResponse = z.infer<typeof introspectionResponse>;
