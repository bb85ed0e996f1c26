import { describe, expect, it } from 'vitest';
import { assignServerNames } from './assignServerNames.ts';
import { internalNameOf, toolPathOf } from './toolPath.ts';

const inst = (id: string, name: string, team: string) => ({
  installation_id: id,
  installation_name: name,
  team_id: `team-${team}`,
  team_slug: team,
});

describe('assignServerNames', () => {
  it('uses the installation name when it is unique across teams', () => {
    const names = assignServerNames([inst('1', 'github', 'alpha'), inst('2', 'slack', 'beta')]);
    expect([...names.values()]).toEqual(['github', 'slack']);
  });

  it('qualifies every installation of a name used by several teams, whatever the order', () => {
    const servers = [inst('1', 'github', 'alpha'), inst('2', 'github', 'beta'), inst('3', 'slack', 'alpha')];
    const names = assignServerNames(servers);
    expect(Object.fromEntries(names)).toEqual({ '1': 'github-alpha', '2': 'github-beta', '3': 'slack' });
    expect(Object.fromEntries(assignServerNames([...servers].reverse()))).toEqual(Object.fromEntries(names));
  });

  it('keeps plain names when the satellite is scoped to a team', () => {
    const names = assignServerNames([inst('1', 'github', 'alpha'), inst('2', 'github', 'beta')], { teamScoped: true });
    expect([...names.values()]).toEqual(['github', 'github']);
  });
});

describe('tool paths', () => {
  it('turns the first colon into a dash', () => {
    expect(internalNameOf(toolPathOf('github', 'create_issue'))).toBe('github-create_issue');
    expect(internalNameOf('a:b:c')).toBe('a-b:c');
  });

  it('refuses paths without a server or a tool', () => {
    expect(internalNameOf('github')).toBeUndefined();
    expect(internalNameOf(':tool')).toBeUndefined();
    expect(internalNameOf('server:')).toBeUndefined();
  });
});
