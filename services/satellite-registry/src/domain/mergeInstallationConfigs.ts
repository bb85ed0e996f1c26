import {
  type ConfigurationLevel,
  configurationLevel,
  type InstallationConfigRecord,
  type ServerConfiguration,
  serverConfiguration,
} from '@orbital/contracts';

/** The id a satellite runs an installation's process under: the slugs for a reader, the installation id for uniqueness. */
function processIdFor(serverSlug: string, teamSlug: string, installationId: string): string {
  return `${serverSlug}-${teamSlug}-${installationId}`;
}

export type SkippedInstallation = {
  installation_id: string;
  team_id: string;
  level: 'template' | 'team' | 'user' | 'merged' | 'scope';
  reason: 'invalid_json' | 'invalid_configuration' | 'outside_scope';
};

type LevelName = 'template' | 'team' | 'user';

/**
 * The distributed configuration: for each installation,
 * template level, then team level, then user level. Arguments: template arguments followed by team
 * arguments (then the user's). Environment and headers: template values overlaid by the team's, then
 * the user's. The command and transport are the template's alone, so a team or user setting cannot
 * change what a satellite executes; a remote URL may be overridden by the team.
 *
 * An installation whose stored text is not valid JSON, or does not describe a runnable server, is
 * skipped and reported (the caller logs a warning) while the others are still served. `allowedTeams`
 * null admits every team (a global satellite); otherwise a record of another team is dropped even if
 * the installations service sent it. Nothing here logs or keeps values: they may hold secrets.
 */
export function mergeInstallationConfigs(
  records: readonly InstallationConfigRecord[],
  allowedTeams: ReadonlySet<string> | null,
): { servers: ServerConfiguration[]; skipped: SkippedInstallation[] } {
  const servers: ServerConfiguration[] = [];
  const skipped: SkippedInstallation[] = [];
  for (const record of records) {
    const ref = { installation_id: record.installation_id, team_id: record.team_id };
    if (allowedTeams && !allowedTeams.has(record.team_id)) {
      skipped.push({ ...ref, level: 'scope', reason: 'outside_scope' });
      continue;
    }
    const levels: Partial<Record<LevelName, ConfigurationLevel>> = {};
    let problem: SkippedInstallation | null = null;
    for (const [level, text] of [
      ['template', record.template_config],
      ['team', record.team_config],
      ['user', record.user_config],
    ] as const) {
      if (text === null) continue;
      const parsed = parseLevel(text);
      if (!parsed.ok) {
        problem = { ...ref, level, reason: parsed.reason };
        break;
      }
      levels[level] = parsed.level;
    }
    if (problem) {
      skipped.push(problem);
      continue;
    }
    const template = levels.template ?? {};
    const team = levels.team ?? {};
    const user = levels.user ?? {};
    const merged = serverConfiguration.safeParse({
      process_id: processIdFor(record.server_slug, record.team_slug, record.installation_id),
      installation_id: record.installation_id,
      installation_name: record.installation_name,
      team_id: record.team_id,
      team_slug: record.team_slug,
      server_slug: record.server_slug,
      ...(record.server_title ? { server_title: record.server_title } : {}),
      ...(record.server_description ? { server_description: record.server_description } : {}),
      transport: record.transport,
      ...(template.command ? { command: template.command } : {}),
      args: [...(template.args ?? []), ...(team.args ?? []), ...(user.args ?? [])],
      env: { ...template.env, ...team.env, ...user.env },
      ...((team.url ?? template.url) ? { url: team.url ?? template.url } : {}),
      headers: { ...template.headers, ...team.headers, ...user.headers },
      settings: { request_logging_enabled: record.settings.request_logging_enabled ?? false },
      ...(record.oauth ? { oauth: record.oauth } : {}),
      ...(record.tool_policy ? { tool_policy: record.tool_policy } : {}),
      ...(record.tool_pins ? { tool_pins: record.tool_pins } : {}),
    });
    if (!merged.success) {
      skipped.push({ ...ref, level: 'merged', reason: 'invalid_configuration' });
      continue;
    }
    servers.push(merged.data);
  }
  return { servers, skipped };
}

function parseLevel(
  text: string,
): { ok: true; level: ConfigurationLevel } | { ok: false; reason: 'invalid_json' | 'invalid_configuration' } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'invalid_json' };
  }
  const level = configurationLevel.safeParse(json);
  return level.success ? { ok: true, level: level.data } : { ok: false, reason: 'invalid_configuration' };
}
