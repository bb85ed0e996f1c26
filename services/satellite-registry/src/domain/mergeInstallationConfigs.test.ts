import type { InstallationConfigRecord } from '@orbital/contracts';
import { describe, expect, it } from 'vitest';
import { mergeInstallationConfigs } from './mergeInstallationConfigs.ts';

/** How the installation of `record()` is named, in the record and in the merged configuration alike. */
const naming = {
  installation_id: 'inst-1',
  installation_name: 'files',
  team_id: 'team-a',
  team_slug: 'alpha',
  server_slug: 'filesystem',
  transport: 'stdio',
} as const;

function record(overrides: Partial<InstallationConfigRecord> = {}): InstallationConfigRecord {
  return {
    ...naming,
    template_config: JSON.stringify({ command: 'npx', args: ['-y', 'server-fs'], env: { MODE: 'ro', LEVEL: 't' } }),
    team_config: JSON.stringify({ args: ['/data'], env: { LEVEL: 'team', TOKEN: 's3cret' } }),
    user_config: null,
    settings: {},
    ...overrides,
  };
}

describe('mergeInstallationConfigs', () => {
  it('puts template arguments before team arguments and overlays the team environment on the template', () => {
    const { servers, skipped } = mergeInstallationConfigs([record()], null);
    expect(skipped).toEqual([]);
    expect(servers).toEqual([
      {
        process_id: 'filesystem-alpha-inst-1',
        ...naming,
        command: 'npx',
        args: ['-y', 'server-fs', '/data'],
        env: { MODE: 'ro', LEVEL: 'team', TOKEN: 's3cret' },
        headers: {},
        settings: { request_logging_enabled: false },
      },
    ]);
  });

  it("carries the catalogue's title and description of the server, which discovery ranks by", () => {
    const about = { server_title: 'Filesystem', server_description: 'Read and write files on the host.' };
    const { servers } = mergeInstallationConfigs([record(about)], null);
    expect(servers[0]).toMatchObject(about);
  });

  it('applies the user level last and never lets a team or user change the command', () => {
    const { servers } = mergeInstallationConfigs(
      [
        record({
          team_config: JSON.stringify({ command: '/bin/sh', env: { LEVEL: 'team' } }),
          user_config: JSON.stringify({ command: 'rm', args: ['--verbose'], env: { LEVEL: 'user' } }),
          settings: { request_logging_enabled: true },
        }),
      ],
      null,
    );
    expect(servers[0]).toMatchObject({
      command: 'npx',
      args: ['-y', 'server-fs', '--verbose'],
      env: { MODE: 'ro', LEVEL: 'user' },
      settings: { request_logging_enabled: true },
    });
  });

  it('merges headers of remote servers and lets the team point at its own URL', () => {
    const { servers } = mergeInstallationConfigs(
      [
        record({
          transport: 'http',
          template_config: JSON.stringify({ url: 'https://mcp.example.com/mcp', headers: { 'x-a': '1', 'x-b': 't' } }),
          team_config: JSON.stringify({ headers: { 'x-b': 'team', authorization: 'Bearer x' } }),
        }),
        record({
          installation_id: 'inst-2',
          transport: 'sse',
          template_config: JSON.stringify({ url: 'https://mcp.example.com/sse' }),
          team_config: JSON.stringify({ url: 'https://team.example.com/sse' }),
        }),
      ],
      null,
    );
    expect(servers[0]).toMatchObject({
      transport: 'http',
      url: 'https://mcp.example.com/mcp',
      headers: { 'x-a': '1', 'x-b': 'team', authorization: 'Bearer x' },
    });
    expect(servers[1]).toMatchObject({ transport: 'sse', url: 'https://team.example.com/sse' });
  });

  it('skips an installation whose stored JSON is invalid and serves the others', () => {
    const { servers, skipped } = mergeInstallationConfigs(
      [
        record({ installation_id: 'bad-team', team_config: '{"env": {' }),
        record({ installation_id: 'bad-user', user_config: 'not json' }),
        record({ installation_id: 'good' }),
      ],
      null,
    );
    expect(servers.map((s) => s.installation_id)).toEqual(['good']);
    expect(skipped).toEqual([
      { installation_id: 'bad-team', team_id: 'team-a', level: 'team', reason: 'invalid_json' },
      { installation_id: 'bad-user', team_id: 'team-a', level: 'user', reason: 'invalid_json' },
    ]);
  });

  it('skips levels of the wrong shape and servers that cannot run', () => {
    const { servers, skipped } = mergeInstallationConfigs(
      [
        record({ installation_id: 'args-not-list', team_config: JSON.stringify({ args: 'x' }) }),
        record({ installation_id: 'no-command', template_config: JSON.stringify({ args: ['a'] }) }),
        record({ installation_id: 'no-url', transport: 'http', template_config: '{}' }),
      ],
      null,
    );
    expect(servers).toEqual([]);
    expect(skipped.map((s) => [s.installation_id, s.level, s.reason])).toEqual([
      ['args-not-list', 'team', 'invalid_configuration'],
      ['no-command', 'merged', 'invalid_configuration'],
      ['no-url', 'merged', 'invalid_configuration'],
    ]);
  });

  it('drops installations of teams outside the satellite scope', () => {
    const { servers, skipped } = mergeInstallationConfigs(
      [record({ installation_id: 'mine' }), record({ installation_id: 'theirs', team_id: 'team-b' })],
      new Set(['team-a']),
    );
    expect(servers.map((s) => s.installation_id)).toEqual(['mine']);
    expect(skipped).toEqual([
      { installation_id: 'theirs', team_id: 'team-b', level: 'scope', reason: 'outside_scope' },
    ]);
  });
});
