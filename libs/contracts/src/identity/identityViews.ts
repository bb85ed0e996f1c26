import { z } from 'zod';
import { globalRole, teamRole } from '../identity.ts';
import { uuidField } from '../ids.ts';
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

export const userView = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string(),
  global_role: globalRole,
  created_at: z.string(),
});
export type UserView = z.infer<typeof userView>;

export const membershipView = z.object({
  team_id: z.string(),
  team_slug: z.string(),
  team_name: z.string(),
  role: teamRole,
  permissions: z.array(teamPermission),
});
export type MembershipView = z.infer<typeof membershipView>;

export const meView = userView.omit({ created_at: true }).extend({
  memberships: z.array(membershipView),
  permissions: z.array(globalPermission),
  session_expires_at: z.string(),
});
export type MeView = z.infer<typeof meView>;

export const teamView = z.object({
  id: z.string(),
  slug: z.string(),
  name: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type TeamView = z.infer<typeof teamView>;

export const memberView = z.object({
  user_id: z.string(),
  email: z.string(),
  name: z.string(),
  role: teamRole,
  created_at: z.string(),
});
export type MemberView = z.infer<typeof memberView>;

export const teamSlug = z
  .string()
  .min(1)
  .max(63)
  .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'lowercase letters and digits, in words joined by single hyphens');
export const teamName = z.string().trim().min(1).max(200);

export const loginBody = z
  .object({
    email: emailField,
    // No strength rule here: the policy applies when a password is set, not when it is tried.
    password: z.string().min(1).max(1024),
  })
  .strict();
export type LoginBody = z.input<typeof loginBody>;

export const loginReply = z.object({
  token: z.string(),
  token_type: z.literal('Bearer'),
  expires_at: z.string(),
  user: userView.omit({ created_at: true }),
});
export type LoginReply = z.infer<typeof loginReply>;

export const createUserBody = z
  .object({
    email: emailField,
    name: z.string().trim().min(1).max(200),
    password: z.string().max(1024),
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
  .object({ user_id: uuidField().optional(), email: emailField.optional(), role: teamRole })
  .strict()
  .refine((b) => (b.user_id === undefined) !== (b.email === undefined), { error: 'give either user_id or email' });
export type AddMemberBody = z.input<typeof addMemberBody>;

export const updateMemberBody = z.object({ role: teamRole }).strict();
