import { globalPermission, globalRole, teamPermission, teamRole } from '@orbital/contracts';
import { timestampToIso } from '@orbital/db';
import { z } from 'zod';
import type { MemberRow, TeamRow, UserRow } from '../identity/identityStore.ts';

/** HTTP shapes of the identity routes (snake_case like the rest of the API; timestamps as ISO 8601). */
export const emailField = z
  .string()
  .trim()
  .max(254)
  .pipe(z.email({ error: 'must be an e-mail address' }));

export const userView = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string(),
  global_role: globalRole,
  created_at: z.string(),
});

export const membershipView = z.object({
  team_id: z.string(),
  team_slug: z.string(),
  team_name: z.string(),
  role: teamRole,
  permissions: z.array(teamPermission),
});

export const meView = userView.omit({ created_at: true }).extend({
  memberships: z.array(membershipView),
  permissions: z.array(globalPermission),
  session_expires_at: z.string(),
});

export const teamView = z.object({
  id: z.string(),
  slug: z.string(),
  name: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});

export const memberView = z.object({
  user_id: z.string(),
  email: z.string(),
  name: z.string(),
  role: teamRole,
  created_at: z.string(),
});

export const teamSlug = z
  .string()
  .min(1)
  .max(63)
  .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'lowercase letters and digits, in words joined by single hyphens');
export const teamName = z.string().trim().min(1).max(200);

export const teamParams = z.object({ teamId: z.uuid({ error: 'must be a team id (UUID)' }) });
export const memberParams = teamParams.extend({ userId: z.uuid({ error: 'must be a user id (UUID)' }) });
export const userParams = z.object({ userId: z.uuid({ error: 'must be a user id (UUID)' }) });

export const toUserView = (u: UserRow) => ({
  id: u.id,
  email: u.email,
  name: u.name,
  global_role: u.global_role,
  created_at: timestampToIso(u.created_at),
});

export const toTeamView = (t: TeamRow) => ({
  id: t.id,
  slug: t.slug,
  name: t.name,
  created_at: timestampToIso(t.created_at),
  updated_at: timestampToIso(t.updated_at),
});

export const toMemberView = (m: MemberRow) => ({
  user_id: m.user_id,
  email: m.email,
  name: m.name,
  role: m.role,
  created_at: timestampToIso(m.created_at),
});
