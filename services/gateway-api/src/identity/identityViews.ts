import type { UserStatus, UserView } from '@orbital/contracts';
import { timestampToIso } from '@orbital/db';
import type { MemberRow, TeamRow, UserRow } from './identityStore.ts';

/** Identity rows as the API shows them (the views are defined in libs/contracts). */

const isoOrNull = (time: number | null) => (time === null ? null : timestampToIso(time));

export const statusOf = (u: Pick<UserRow, 'disabled_at' | 'email_verified_at'>): UserStatus =>
  u.disabled_at !== null ? 'disabled' : u.email_verified_at === null ? 'unverified' : 'active';

export const toUserView = (u: UserRow): UserView => ({
  id: u.id,
  email: u.email,
  name: u.name,
  global_role: u.global_role,
  status: statusOf(u),
  has_password: u.has_password,
  email_verified_at: isoOrNull(u.email_verified_at),
  disabled_at: isoOrNull(u.disabled_at),
  last_login_at: isoOrNull(u.last_login_at),
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
