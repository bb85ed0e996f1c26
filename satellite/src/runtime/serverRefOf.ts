import type { ServerConfiguration } from '@orbital/contracts';

/** The fields naming the server in its lifecycle events: the template's slug and the installation's name. */
export function serverRefOf(config: ServerConfiguration) {
  return {
    server_id: config.installation_id,
    server_slug: config.server_slug,
    installation_name: config.installation_name,
    team_id: config.team_id,
  };
}
