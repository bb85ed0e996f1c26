import { timestampToIso } from '@orbital/db';
import type { MemberRow, TeamRow, UserRow } from './identityStore.ts';

/** Identity rows as the API shows them (the views are defined in libs/contracts). */

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
