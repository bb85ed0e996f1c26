import { z } from 'zod';

/**
 * Permissions that do not depend on a team. `global_admin` holds all of them; `global_user` none.
 * settings.* are the public names of the settings API's permissions (view: reads, search and health; edit:
 * writes; delete); the others cover the platform's own catalogue.
 */
export const globalPermissions = [
  'settings.view',
  'settings.edit',
  'settings.delete',
  'users.view',
  'users.manage',
  'teams.manage',
  'satellites.manage_global',
  'mcp_servers.manage',
  // Operators' view of the background job schedules (GET /api/jobs/status).
  'jobs.view',
  // The whole audit log (GET /api/audit).
  'audit.view',
] as const;
export const globalPermission = z.enum(globalPermissions);
export type GlobalPermission = z.infer<typeof globalPermission>;

/** Permissions held inside one team. A `global_admin` holds every one of them in every team. */
export const teamPermissions = [
  'team.view',
  'team.manage_members',
  'installations.view',
  'installations.manage',
  'satellites.view',
  'satellites.register',
  'satellites.manage',
  'tokens.manage',
  // The team's own entries of the audit log (GET /api/teams/:teamId/audit): team admins only.
  'audit.view',
] as const;
export const teamPermission = z.enum(teamPermissions);
export type TeamPermission = z.infer<typeof teamPermission>;
