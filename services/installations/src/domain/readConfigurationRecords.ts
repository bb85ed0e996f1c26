import type { InstallationConfigRecord } from '@orbital/contracts';
import type { SecretBox } from '@orbital/crypto';
import { type CommonQueryMethods, sql } from '@orbital/db';
import type { Logger } from '@orbital/logger';
import { z } from 'zod';
import { approvedPins } from '../db/toolDefinitionQueries.ts';
import { rulesOfTeams } from '../db/toolPolicyQueries.ts';
import { serverToolPolicyOf } from './combineToolRules.ts';

/**
 * The configuration levels of installations, for configuration distribution to satellites: the
 * template level, the team level and the user level, each as JSON text (the registry parses and merges
 * them, and skips an installation whose text is not valid JSON). Secrets are decrypted only into this
 * result. The user level is that of the member who created the installation: one process serves the
 * whole team, so one member's preferences apply, and it is the installer's.
 *
 * `teamIds` null reads every team (a global satellite). The reply of `installations.config.for_satellite`.
 */
export type ConfigurationRecord = InstallationConfigRecord;

const row = z.object({
  id: z.string(),
  name: z.string(),
  team_id: z.string(),
  team_slug: z.string(),
  server_slug: z.string(),
  server_title: z.string(),
  server_description: z.string().nullable(),
  transport: z.enum(['stdio', 'http', 'sse']),
  command: z.string().nullable(),
  template_args: z.array(z.string()),
  template_env: z.record(z.string(), z.string()),
  url: z.string().nullable(),
  template_headers: z.record(z.string(), z.string()),
  args: z.array(z.string()),
  secret_config: z.string(),
  settings: z.object({ request_logging_enabled: z.boolean().optional() }).catch({}),
  user_id: z.string().nullable(),
  user_args: z.array(z.string()).nullable(),
  user_secret_config: z.string().nullable(),
  oauth: z
    .object({ token_scope: z.enum(['user', 'team']) })
    .passthrough()
    .nullable(),
  authorized: z.boolean(),
  unconfirmed_calls: z.enum(['refuse', 'run']),
});

export async function readConfigurationRecords(
  db: CommonQueryMethods,
  box: SecretBox,
  logger: Logger,
  teamIds: readonly string[] | null,
): Promise<ConfigurationRecord[]> {
  const rows = await db.any(sql.type(row)`
    SELECT i.id, i.name, i.team_id, i.team_slug, t.slug AS server_slug, t.name AS server_title,
      t.description AS server_description, t.transport, t.command,
      t.args AS template_args, t.env AS template_env, t.url, t.headers AS template_headers, i.args, i.secret_config,
      i.settings, i.unconfirmed_calls, u.user_id, u.args AS user_args, u.secret_config AS user_secret_config, t.oauth,
      EXISTS (SELECT 1 FROM oauth_tokens o WHERE o.installation_id = i.id) AS authorized
    FROM mcp_installations i
    JOIN mcp_server_templates t ON t.id = i.template_id
    LEFT JOIN mcp_user_configs u ON u.installation_id = i.id AND u.user_id = i.created_by
    ${teamIds === null ? sql.fragment`` : sql.fragment`WHERE i.team_id = ANY(${sql.array([...teamIds], 'text')})`}
    ORDER BY i.team_id, i.name`);
  const rules = await rulesOfTeams(db, teamIds);
  const pins = await approvedPins(
    db,
    rows.map((r) => r.id),
  );
  const records: ConfigurationRecord[] = [];
  for (const r of rows) {
    let team: { env: Record<string, string>; headers: Record<string, string> };
    let user: { env: Record<string, string> } | null = null;
    try {
      team = JSON.parse(box.decrypt(r.secret_config, `installation:${r.id}`));
      if (r.user_id && r.user_secret_config) {
        user = JSON.parse(box.decrypt(r.user_secret_config, `user-config:${r.id}:${r.user_id}`));
      }
    } catch (err) {
      // A value sealed under another key or tampered with: leave the installation out, never fail the rest.
      logger.warn({ installation_id: r.id, err: (err as Error).message }, 'installation secrets unreadable; skipped');
      continue;
    }
    const template = {
      ...(r.command ? { command: r.command } : {}),
      args: r.template_args,
      env: r.template_env,
      ...(r.url ? { url: r.url } : {}),
      headers: r.template_headers,
    };
    records.push({
      installation_id: r.id,
      installation_name: r.name,
      team_id: r.team_id,
      team_slug: r.team_slug,
      server_slug: r.server_slug,
      // The contract's limits: a catalogue text past them is cut rather than failing the reply.
      server_title: r.server_title.slice(0, 200),
      ...(r.server_description ? { server_description: r.server_description.slice(0, 4000) } : {}),
      transport: r.transport,
      template_config: JSON.stringify(template),
      team_config: JSON.stringify({ args: r.args, env: team.env, headers: team.headers }),
      user_config: user ? JSON.stringify({ args: r.user_args ?? [], env: user.env }) : null,
      settings: r.settings,
      oauth: r.oauth ? { token_scope: r.oauth.token_scope, authorized: r.authorized } : null,
      tool_policy: serverToolPolicyOf(
        rules.filter((rule) => rule.team_id === r.team_id && rule.server_slug === r.server_slug),
        r.id,
        r.unconfirmed_calls,
      ),
      ...(pins.has(r.id) ? { tool_pins: pins.get(r.id) } : {}),
    });
  }
  return records;
}
