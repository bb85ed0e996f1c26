import { randomUUID } from 'node:crypto';
import { toolPolicySubjects as tp } from '@orbital/contracts';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  eventually,
  installMemoryServers,
  otherTeamAdmin,
  refusal,
  teamA,
  teamAdmin,
  teamUser,
} from './installationsHarness.ts';
import { as, useInstallations } from './useInstallations.ts';

/**
 * Tool rules kept by the installations service: per installation and per team, combined into the
 * policy each installation's configuration carries to satellites, changed by team admins only, audited.
 */

const h = useInstallations();
let first: string;
let second: string;

beforeAll(async () => {
  [first, second] = (await installMemoryServers(h, ['memory-one', 'memory-two'])) as [string, string];
  await h.emit('mcp.tools.discovered', {
    installation_id: first,
    installation_name: 'memory-one',
    team_id: teamA,
    server_slug: 'memory',
    tool_count: 2,
    total_tokens: 20,
    tools: [
      { tool_name: 'read_graph', description: 'Read the graph', input_schema: { type: 'object' }, token_count: 10 },
      {
        tool_name: 'delete_entities',
        description: 'Delete entities',
        input_schema: { type: 'object' },
        token_count: 10,
        annotations: { destructiveHint: true },
      },
    ],
    discovered_at: new Date().toISOString(),
  });
  await eventually(
    async () =>
      (await h.client.request(tp.get, { team_id: teamA, installation_id: first }, as(teamUser))).tools.length === 2,
  );
}, 60000);

/** A change setting one tool's rule: whether it is enabled, and whether a call needs confirmation (null: the default). */
const ruleOf = (tool_name: string, rule: { enabled: boolean; needs_confirmation: boolean | null }) => ({
  tool_name,
  rule,
});

const policyOf = async (installationId: string) =>
  (await h.app.configurationRecords([teamA])).find((r) => r.installation_id === installationId)?.tool_policy;

describe('tool policies', () => {
  it("lists an installation's tools with the defaults: enabled, confirmation where annotated destructive", async () => {
    const view = await h.client.request(tp.get, { team_id: teamA, installation_id: first }, as(teamUser));
    expect(view.without_elicitation).toBe('refuse');
    expect(view.tools).toEqual([
      expect.objectContaining({
        tool_name: 'delete_entities',
        destructive: true,
        enabled: true,
        needs_confirmation: true,
      }),
      expect.objectContaining({
        tool_name: 'read_graph',
        destructive: false,
        enabled: true,
        needs_confirmation: false,
      }),
    ]);
    expect(await policyOf(first)).toEqual({ disabled: [], confirm: [], no_confirm: [], without_elicitation: 'refuse' });
  });

  it('lets team admins change them, and no one else', async () => {
    const changes = { tools: [ruleOf('read_graph', { enabled: false, needs_confirmation: null })] };
    expect(
      await refusal(h.client.request(tp.update, { team_id: teamA, installation_id: first, changes }, as(teamUser))),
    ).toBe('forbidden');
    expect(
      await refusal(
        h.client.request(tp.update, { team_id: teamA, installation_id: first, changes }, as(otherTeamAdmin)),
      ),
    ).toBe('forbidden');
    expect(
      await refusal(h.client.request(tp.get, { team_id: teamA, installation_id: first }, as(otherTeamAdmin))),
    ).toBe('forbidden');
    expect(
      await refusal(
        h.client.request(
          tp.updateTeam,
          { team_id: teamA, changes: { server_slug: 'memory', tools: changes.tools } },
          as(teamUser),
        ),
      ),
    ).toBe('forbidden');
    expect(
      await refusal(h.client.request(tp.get, { team_id: teamA, installation_id: randomUUID() }, as(teamAdmin))),
    ).toBe('not_found');
  });

  it("combines the team's rules with the installation's, the installation's winning, and reconfigures satellites", async () => {
    const before = h.commands.length;
    const team = await h.client.request(
      tp.updateTeam,
      {
        team_id: teamA,
        changes: {
          server_slug: 'memory',
          tools: [
            ruleOf('read_graph', { enabled: false, needs_confirmation: null }),
            ruleOf('create_entities', { enabled: true, needs_confirmation: true }),
          ],
        },
      },
      as(teamAdmin),
    );
    expect(team).toHaveLength(2);
    // Both installations of the server are told.
    await eventually(async () => {
      const told = h.commands.slice(before).map((c) => (c.payload as { installation_id: string }).installation_id);
      return told.includes(first) && told.includes(second);
    });
    const view = await h.client.request(
      tp.update,
      {
        team_id: teamA,
        installation_id: first,
        changes: {
          without_elicitation: 'run',
          tools: [
            ruleOf('read_graph', { enabled: true, needs_confirmation: null }),
            ruleOf('delete_entities', { enabled: true, needs_confirmation: false }),
          ],
        },
      },
      as(teamAdmin),
    );
    expect(view.without_elicitation).toBe('run');
    const byName = Object.fromEntries(view.tools.map((t) => [t.tool_name, t]));
    expect(byName.read_graph).toMatchObject({
      enabled: true,
      team_rule: { enabled: false },
      installation_rule: { enabled: true },
    });
    expect(byName.create_entities).toMatchObject({ listed: false, needs_confirmation: true });
    expect(byName.delete_entities).toMatchObject({ destructive: true, needs_confirmation: false });
    expect(await policyOf(first)).toEqual({
      disabled: [],
      confirm: ['create_entities'],
      no_confirm: ['delete_entities'],
      without_elicitation: 'run',
    });
    expect(await policyOf(second)).toEqual({
      disabled: ['read_graph'],
      confirm: ['create_entities'],
      no_confirm: [],
      without_elicitation: 'refuse',
    });
    // A rule removed falls back to the team's.
    await h.client.request(
      tp.update,
      { team_id: teamA, installation_id: first, changes: { tools: [{ tool_name: 'read_graph', rule: null }] } },
      as(teamAdmin),
    );
    expect((await policyOf(first))?.disabled).toEqual(['read_graph']);
  });

  it('records each change in the audit log as the admin who made it', async () => {
    const entries = await h.auditEntries<{ action: string; actor: { id: string }; details: Record<string, unknown> }>(
      '%tool_policy_updated',
    );
    expect(entries).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          action: 'team.tool_policy_updated',
          actor: expect.objectContaining({ id: 'u-team-admin' }),
        }),
        expect.objectContaining({
          action: 'installation.tool_policy_updated',
          details: expect.objectContaining({ without_elicitation: 'run', previous_without_elicitation: 'refuse' }),
        }),
      ]),
    );
    // Refused changes left nothing.
    expect(entries.every((e) => e.actor.id === 'u-team-admin')).toBe(true);
  });
});
