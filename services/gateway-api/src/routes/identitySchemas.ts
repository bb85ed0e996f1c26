import { timestampToIso } from '@orbital/db';
import { z } from 'zod';
import type { MemberRow, TeamRow, UserRow } from '../identity/identityStore.ts';

/** Path parameters of the identity routes, and the mapping of identity rows to their views (libs/contracts). */
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
