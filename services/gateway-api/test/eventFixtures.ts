import { randomUUID } from 'node:crypto';

/** The installation the fixture events name: installation ids are UUIDs the backend issued. */
export const fixtureInstallationId = '5f0c2c8e-4d0b-4c57-9a57-2b1f3f0e7a01';

/** An event as a satellite sends it: a fresh client id, stamped now. */
function satelliteEvent<Data>(type: string, data: Data) {
  return { id: randomUUID(), type, timestamp: new Date().toISOString(), data };
}

/** Valid satellite events, a fresh client id each, for tests and the events benchmark. */
export function crashedEvent(teamId = 'team-1', overrides: Record<string, unknown> = {}) {
  return satelliteEvent('mcp.server.crashed', {
    server_id: fixtureInstallationId,
    server_slug: 'github',
    installation_name: 'github',
    team_id: teamId,
    process_id: 4242,
    exit_code: 1,
    signal: null,
    uptime_seconds: 12.5,
    crash_count: 1,
    will_restart: true,
    ...overrides,
  });
}

export function toolExecutedEvent(teamId = 'team-1', overrides: Record<string, unknown> = {}) {
  return satelliteEvent('mcp.tool.executed', {
    installation_id: fixtureInstallationId,
    team_id: teamId,
    server_slug: 'github',
    tool_name: 'search_issues',
    session_id: 'session-1',
    request_params: { query: 'is:open label:bug' },
    duration_ms: 84,
    success: true,
    error_message: null,
    executed_at: new Date().toISOString(),
    ...overrides,
  });
}

export function configRefreshedEvent() {
  return satelliteEvent('config.refreshed', {
    config_hash: 'a1b2c3d4e5f6',
    server_count: 3,
    teams_count: 1,
    change_detected: false,
    fetch_duration_ms: 12,
  });
}
