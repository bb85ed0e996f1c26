import { z } from 'zod';
import { serviceAccess } from '../access/subjectAccess.ts';
import { installationNaming, serverAbout, serverOAuth } from '../satellite/serverConfiguration.ts';
import { serverToolPolicy, toolPins } from '../satellite/toolPolicy.ts';
import { defineSubject } from '../subject.ts';

/**
 * One level of an installation's configuration as parsed from its stored JSON text. `command` and the
 * transport belong to the template alone: neither a team nor a user can change what a satellite runs.
 */
export const configurationLevel = z.object({
  command: z.string().min(1).optional(),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  url: z.url().optional(),
  headers: z.record(z.string(), z.string()).optional(),
});
export type ConfigurationLevel = z.infer<typeof configurationLevel>;

/**
 * An installation as the installations service stores it, for configuration distribution. Each level is
 * the stored JSON text, unparsed: the registry parses and merges it, and skips (with a warning) an
 * installation whose text is not valid JSON. Secrets are decrypted by the installations service only
 * into this reply; the registry never stores or logs it.
 */
export const installationConfigRecord = z.object({
  ...installationNaming,
  ...serverAbout,
  template_config: z.string(),
  team_config: z.string(),
  /** The user level (user preferences), when the installation has one. */
  user_config: z.string().nullable(),
  settings: z.object({ request_logging_enabled: z.boolean() }).partial().default({}),
  /** Set for a remote server behind OAuth (its template says so). */
  oauth: serverOAuth.nullable().optional(),
  /** The installation's tool policy, team and installation rules combined. */
  tool_policy: serverToolPolicy.optional(),
  /** The approved tool definitions, while the installation pins them and has recorded a listing. */
  tool_pins: toolPins.optional(),
});
export type InstallationConfigRecord = z.infer<typeof installationConfigRecord>;

/**
 * Served by the installations service, called by the registry for GET /api/satellites/:id/config.
 * `team_ids` null means every team (a global satellite).
 */
export const installationsConfigForSatelliteSubject = defineSubject({
  subject: 'installations.config.for_satellite',
  service: 'installations',
  access: serviceAccess('satellite-registry'),
  description:
    'The installations of the given teams (every team when team_ids is null) with their template, team and user configuration levels as stored JSON text, secrets decrypted. Platform services only.',
  request: z.object({ team_ids: z.array(z.string().min(1)).max(1000).nullable() }).strict(),
  reply: z.object({ installations: z.array(installationConfigRecord) }),
});
