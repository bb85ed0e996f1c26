import type { ServerConfiguration } from '@orbital/contracts';

/**
 * The server part of every tool path (`server:tool`), per installation id. It is the installation's
 * `installation_name`, unique within a team. A satellite serving several teams without team scoping
 * (a global satellite in standalone mode, where clients carry no team) could see one name from two
 * teams: every installation whose name is used by more than one team is then qualified as
 * `<installation_name>-<team_slug>`, for all of those teams alike, so the result depends only on the
 * configuration, never on its order.
 */
export function assignServerNames(
  servers: readonly Pick<ServerConfiguration, 'installation_id' | 'installation_name' | 'team_id' | 'team_slug'>[],
  options: { teamScoped: boolean } = { teamScoped: false },
): Map<string, string> {
  const teamsByName = new Map<string, Set<string>>();
  for (const server of servers) {
    const teams = teamsByName.get(server.installation_name) ?? new Set<string>();
    teams.add(server.team_id);
    teamsByName.set(server.installation_name, teams);
  }
  const names = new Map<string, string>();
  for (const server of servers) {
    const shared = !options.teamScoped && (teamsByName.get(server.installation_name)?.size ?? 0) > 1;
    names.set(
      server.installation_id,
      shared ? `${server.installation_name}-${server.team_slug}` : server.installation_name,
    );
  }
  return names;
}
