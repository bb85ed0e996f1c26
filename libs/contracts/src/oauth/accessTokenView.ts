import { z } from 'zod';
import { isoTimestamp } from '../isoTimestamp.ts';

/**
 * A token an MCP client presents to a satellite: an OAuth grant a client obtained, or a personal access
 * token a person made for one of their teams. The token itself appears only in the answer that creates it.
 */
export const accessTokenView = z.object({
  id: z.string(),
  kind: z.enum(['oauth', 'personal']),
  name: z.string(),
  team_id: z.string(),
  user_id: z.string(),
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
