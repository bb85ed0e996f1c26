import { z } from 'zod';
import { globalRole, teamRole } from '../identity.ts';
import { uuidField } from '../ids.ts';
import { isoTimestamp, recordTimestamps } from '../isoTimestamp.ts';
import { globalPermission, teamPermission } from './permissions.ts';

/**
 * HTTP shapes of the identity routes (users, sessions, teams, memberships), snake_case like the rest of
 * the API, timestamps as ISO 8601. gateway-api answers with them and the console reads them, so both
 * sides share this one definition.
 */
export const emailField = z
  .string()
  .trim()
  .max(254)
  .pipe(z.email({ error: 'must be an e-mail address' }));

/**
 * Where an account is in its life: `active`; `unverified` (registered, the mailed link not followed yet:
 * it cannot sign in); `disabled` (by a global admin: it cannot sign in, its sessions and tokens stopped).
 * A deleted account is not listed: only a tombstone of its id and name is kept.
 */
export const userStatus = z.enum(['active', 'unverified', 'disabled']);
export type UserStatus = z.infer<typeof userStatus>;

/** Users, teams and memberships are gateway-api's rows, keyed by UUIDs. */
const uuid = uuidField();

export const userView = z.object({
  id: uuid,
  email: z.string(),
  name: z.string(),
  global_role: globalRole,
  status: userStatus,
  /** Whether the account has a password (one that signs in only with single sign-on has none). */
  has_password: z.boolean(),
  email_verified_at: isoTimestamp.nullable(),
  disabled_at: isoTimestamp.nullable(),
  last_login_at: isoTimestamp.nullable(),
  created_at: isoTimestamp,
});
export type UserView = z.infer<typeof userView>;

/** The account fields a login answers with and `GET /api/users/me` starts with. */
export const accountSummary = userView.pick({ id: true, email: true, name: true, global_role: true });

/** `GET /api/users`: search (`q`, over e-mail address and name), paging, and a status filter. */
export const listUsersQuery = z
  .object({
    q: z.string().trim().max(200).optional(),
    status: userStatus.optional(),
    limit: z.coerce.number().int().min(1).max(200).default(50),
    offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
  })
  .strict();
/** The query as a client writes it (the schema coerces the text of a URL). */
export type ListUsersQuery = { q?: string; status?: UserStatus; limit?: number; offset?: number };

export const userPage = z.object({
  items: z.array(userView),
  /** How many users match, over every page. */
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});
export type UserPage = z.infer<typeof userPage>;

/** What a global admin changes of an account: its global role, or whether it is disabled. */
export const updateUserBody = z
  .object({ global_role: globalRole.optional(), disabled: z.boolean().optional() })
  .strict()
  .refine((b) => b.global_role !== undefined || b.disabled !== undefined, {
    error: 'give global_role, disabled or both',
  });
export type UpdateUserBody = z.input<typeof updateUserBody>;

/** A password as it is set (its strength is checked by the policy); never when it is tried. */
export const newPassword = z.string().max(1024);

export const changePasswordBody = z
  .object({ current_password: z.string().min(1, 'give your current password').max(1024), new_password: newPassword })
  .strict();
export type ChangePasswordBody = z.input<typeof changePasswordBody>;

export const teamSlug = z
  .string()
  .min(1)
  .max(63)
  .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'lowercase letters and digits, in words joined by single hyphens');
export const teamName = z.string().trim().min(1).max(200);

export const membershipView = z.object({
  team_id: uuid,
  team_slug: teamSlug,
  team_name: teamName,
  role: teamRole,
  permissions: z.array(teamPermission),
});
export type MembershipView = z.infer<typeof membershipView>;

export const meView = accountSummary.extend({
  memberships: z.array(membershipView),
  permissions: z.array(globalPermission),
  session_expires_at: isoTimestamp,
});
export type MeView = z.infer<typeof meView>;

export const teamView = z.object({
  id: uuid,
  slug: teamSlug,
  name: teamName,
  ...recordTimestamps,
});
export type TeamView = z.infer<typeof teamView>;

export const memberView = z.object({
  user_id: uuid,
  email: z.string(),
  name: z.string(),
  role: teamRole,
  created_at: isoTimestamp,
});
export type MemberView = z.infer<typeof memberView>;

export const loginBody = z
  .object({
    email: emailField,
    // No strength rule here: the policy applies when a password is set, not when it is tried.
    password: z.string().min(1, 'give your password').max(1024),
  })
  .strict();
export type LoginBody = z.input<typeof loginBody>;

export const loginReply = z.object({
  token: z.string(),
  token_type: z.literal('Bearer'),
  expires_at: isoTimestamp,
  user: accountSummary,
});
export type LoginReply = z.infer<typeof loginReply>;

export const createUserBody = z
  .object({
    email: emailField,
    name: z.string().trim().min(1).max(200),
    password: newPassword,
    global_role: globalRole.default('global_user'),
  })
  .strict();
export type CreateUserBody = z.input<typeof createUserBody>;

export const createTeamBody = z.object({ slug: teamSlug, name: teamName }).strict();
export type CreateTeamBody = z.input<typeof createTeamBody>;

export const updateTeamBody = z
  .object({ slug: teamSlug.optional(), name: teamName.optional() })
  .strict()
  .refine((b) => b.slug !== undefined || b.name !== undefined, { error: 'give slug, name or both' });

export const addMemberBody = z
  .object({ user_id: uuid.optional(), email: emailField.optional(), role: teamRole })
  .strict()
  .refine((b) => (b.user_id === undefined) !== (b.email === undefined), { error: 'give either user_id or email' });
export type AddMemberBody = z.input<typeof addMemberBody>;

export const updateMemberBody = z.object({ role: teamRole }).strict();
