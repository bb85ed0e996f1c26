import { z } from 'zod';
import { globalRole, teamRole } from '../identity.ts';

/** One way to sign in with an outside account: the button's name and where it starts. */
export const signInProvider = z.object({
  /** "GitHub", or the single sign-on's display name ("Acme SSO"): the console says "Sign in with <name>". */
  name: z.string(),
  /** A path of gateway-api the browser navigates to; `?next=<console path>` says where to land afterwards. */
  start_url: z.string(),
});
export type SignInProvider = z.infer<typeof signInProvider>;

/**
 * The ways to sign in that are on, for the login page (public: it is read before anyone is signed in).
 * A provider is listed only when it is enabled and configured, so the console never shows a button
 * that leads to an error.
 */
export const signInMethods = z.object({
  login_enabled: z.boolean(),
  password: z.boolean(),
  repohost: signInProvider.nullable(),
  oidc: signInProvider.nullable(),
});
export type SignInMethods = z.infer<typeof signInMethods>;

/**
 * `oidc.role_mapping`: a JSON object from a value of the role claim to the global role it gives, e.g.
 * `{"orbital-admins": "global_admin"}`. A user holding any value mapped to `global_admin` is a global
 * admin; every other user signing in is a `global_user`. An empty setting leaves roles to Orbital.
 */
export const oidcRoleMapping = z.record(z.string().min(1).max(500), globalRole);
export type OidcRoleMapping = z.infer<typeof oidcRoleMapping>;

/** `<team slug>` or `<team slug>:<team role>` (team_user when no role is given). */
const teamTarget = z
  .string()
  .regex(/^[a-z0-9]+(-[a-z0-9]+)*(:[a-z_]+)?$/, 'must be "<team slug>" or "<team slug>:team_admin|team_user"')
  .transform((text, ctx) => {
    const [slug = '', role = 'team_user'] = text.split(':');
    const parsed = teamRole.safeParse(role);
    if (!parsed.success) {
      ctx.addIssue({ code: 'custom', message: `unknown team role ${role}: use team_admin or team_user` });
      return z.NEVER;
    }
    return { slug, role: parsed.data };
  });

/**
 * `oidc.team_mapping`: a JSON object from a value of the team claim to one team or a list of teams, each
 * `<team slug>[:<team role>]`, e.g. `{"platform-devs": "platform", "platform-leads": "platform:team_admin",
 * "everyone": ["platform", "data"]}`. The teams named in the mapping are kept in step with the claim on
 * every sign-in (joined, role changed, or left); memberships of teams it does not name are left alone.
 */
export const oidcTeamMapping = z.record(
  z.string().min(1).max(500),
  // One target may be written without the list; either way each is checked with its own message.
  z.preprocess((value) => (typeof value === 'string' ? [value] : value), z.array(teamTarget).min(1)),
);
export type OidcTeamMapping = z.infer<typeof oidcTeamMapping>;
