import { z } from 'zod';
import { uuidField } from '../ids.ts';
import { isoTimestamp } from '../isoTimestamp.ts';

/** Grants, users and teams are gateway-api's rows, keyed by UUIDs. */
const uuid = uuidField();

/**
 * A token an MCP client presents to a satellite: an OAuth grant a client obtained, or a personal access
 * token a person made for one of their teams. The token itself appears only in the answer that creates it.
 */
export const accessTokenView = z.object({
  id: uuid,
  kind: z.enum(['oauth', 'personal']),
  name: z.string(),
  team_id: uuid,
  user_id: uuid,
  user_email: z.string(),
  client_id: z.string().nullable(),
  client_name: z.string().nullable(),
  scope: z.string(),
  resource: z.string().nullable(),
  created_at: isoTimestamp,
  expires_at: isoTimestamp,
});
export type AccessTokenView = z.infer<typeof accessTokenView>;

export const createdAccessToken = accessTokenView.extend({ token: z.string() });
export type CreatedAccessToken = z.infer<typeof createdAccessToken>;
