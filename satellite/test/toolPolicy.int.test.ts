import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, type ClientCapabilities, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { ServerConfiguration, ServerToolPolicy } from '@orbital/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SatelliteApp } from '../src/app.ts';
import { memoryServer, referenceServer, textOf, waitUntil } from './helpers.ts';
import { startTestSatellite } from './startTestSatellite.ts';

/**
 * Tool policies as a satellite applies them, with real MCP clients of both generations against the
 * reference memory server (whose delete_* tools are annotated destructive): a disabled tool is absent
 * from discovery and refused by execution; a tool needing confirmation runs only when the person
 * behind the client confirms in an elicitation form; a client that cannot be asked is refused unless
 * the installation lets such calls run.
 */

let satellite: SatelliteApp;
let url: URL;
let events: Awaited<ReturnType<typeof startTestSatellite>>['events'];
const clients: Client[] = [];
const workDir = mkdtempSync(join(tmpdir(), 'satellite-tool-policy-'));

function memory(name: string, policy: ServerToolPolicy): ServerConfiguration {
  return {
    ...referenceServer(name, [memoryServer], { MEMORY_FILE_PATH: join(workDir, `${name}.jsonl`) }),
    tool_policy: policy,
  };
}

const strict = memory('strict', {
  disabled: ['read_graph'],
  confirm: ['create_entities'],
  no_confirm: ['delete_relations'],
  without_elicitation: 'refuse',
});
const lenient = memory('lenient', { disabled: [], confirm: [], no_confirm: [], without_elicitation: 'run' });

beforeAll(async () => {
  ({ satellite, url, events } = await startTestSatellite({ servers: [strict, lenient] }));
  await waitUntil(() => satellite.runtime.onlineTools().length >= 16, 30000);
}, 60000);

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => {});
  await satellite?.close();
});

type Era = 'legacy' | 'modern';

/** A client of one generation; with `answer`, it declares elicitation and answers every form so. */
async function connect(era: Era, answer?: { action: 'accept' | 'decline' | 'cancel'; confirm?: boolean }) {
  const capabilities: ClientCapabilities = answer ? { elicitation: {} } : {};
  const client = new Client(
    { name: `policy-${era}`, version: '1.0.0' },
    { capabilities, ...(era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}) },
  );
  const asked: string[] = [];
  if (answer) {
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(String(request.params.message));
      return answer.action === 'accept'
        ? { action: 'accept', content: { confirm: answer.confirm ?? true } }
        : { action: answer.action };
    });
  }
  await client.connect(new StreamableHTTPClientTransport(url));
  clients.push(client);
  return { client, asked };
}

const execute = (toolPath: string, args: Record<string, unknown>) => ({
  name: 'execute_mcp_tool',
  arguments: { tool_path: toolPath, arguments: args },
});

async function discovered(client: Client, query: string): Promise<string[]> {
  const result = await client.callTool({ name: 'discover_mcp_tools', arguments: { query, limit: 50 } });
  return (JSON.parse(textOf(result)) as { tools: { tool_path: string }[] }).tools.map((t) => t.tool_path);
}

async function entityNames(client: Client, server: string): Promise<string[]> {
  const result = await client.callTool(execute(`${server}:open_nodes`, { names: ['ada', 'bob', 'eve'] }));
  expect(result.isError, textOf(result)).toBeFalsy();
  return (JSON.parse(textOf(result)) as { entities: { name: string }[] }).entities.map((e) => e.name).sort();
}

describe.each(['legacy', 'modern'] as const)('tool policies for a %s client', (era) => {
  it('leaves a disabled tool out of discovery and refuses to execute it', async () => {
    const { client } = await connect(era);
    const found = await discovered(client, 'read graph knowledge entities');
    expect(found).toContain('lenient:read_graph');
    expect(found).not.toContain('strict:read_graph');
    expect(found).toContain('strict:search_nodes');
    const refused = await client.callTool(execute('strict:read_graph', {}));
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/disabled by its team's tool policy/);
    const allowed = await client.callTool(execute('lenient:read_graph', {}));
    expect(allowed.isError, textOf(allowed)).toBeFalsy();
  });

  it('runs a tool an admin marked for confirmation once the person confirms in the form', async () => {
    const { client, asked } = await connect(era, { action: 'accept', confirm: true });
    const name = era === 'legacy' ? 'ada' : 'bob';
    const result = await client.callTool(
      execute('strict:create_entities', { entities: [{ name, entityType: 'person', observations: [] }] }),
    );
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatch(/strict:create_entities.*team admin asked for confirmation/);
    expect(await entityNames(client, 'strict')).toContain(name);
  });

  it('does not run a destructive tool the person declines, or confirms with no', async () => {
    const name = era === 'legacy' ? 'ada' : 'bob';
    for (const answer of [{ action: 'decline' as const }, { action: 'accept' as const, confirm: false }]) {
      const { client, asked } = await connect(era, answer);
      const result = await client.callTool(execute('strict:delete_entities', { entityNames: [name] }));
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/was not run: the user (declined|did not confirm it)/);
      expect(asked[0]).toMatch(/marks it destructive/);
      expect(await entityNames(client, 'strict')).toContain(name);
    }
  });

  it('runs a tool an admin exempted from confirmation without asking', async () => {
    const { client, asked } = await connect(era, { action: 'decline' });
    const result = await client.callTool(execute('strict:delete_relations', { relations: [] }));
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(asked).toHaveLength(0);
  });

  it('refuses a tool needing confirmation to a client that cannot be asked, unless the installation says run', async () => {
    const { client } = await connect(era);
    const refused = await client.callTool(execute('strict:delete_entities', { entityNames: ['nobody'] }));
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/did not declare the elicitation capability/);
    const ran = await client.callTool(execute('lenient:delete_entities', { entityNames: ['nobody'] }));
    expect(ran.isError, textOf(ran)).toBeFalsy();
  });
});

describe('a policy change', () => {
  it('applies without restarting the server: the tool leaves discovery and execution at once', async () => {
    const { client } = await connect('legacy');
    const outcome = await satellite.runtime.apply([
      strict,
      { ...lenient, tool_policy: { ...(lenient.tool_policy as ServerToolPolicy), disabled: ['search_nodes'] } },
    ]);
    expect(outcome.unchanged).toEqual(expect.arrayContaining([strict.installation_id, lenient.installation_id]));
    expect(await discovered(client, 'search nodes')).not.toContain('lenient:search_nodes');
    const refused = await client.callTool(execute('lenient:search_nodes', { query: 'ada' }));
    expect(textOf(refused)).toMatch(/disabled/);
  });
});

describe('pinned tool definitions', () => {
  /** The definition hashes the satellite reported for the lenient installation's tools. */
  function reportedHashes(): Record<string, string> {
    const listing = events.events.findLast(
      (e) => e.type === 'mcp.tools.discovered' && e.data.installation_id === lenient.installation_id,
    );
    if (listing?.type !== 'mcp.tools.discovered') throw new Error('no listing reported');
    return Object.fromEntries(listing.data.tools.map((t) => [t.tool_name, t.definition_hash as string]));
  }

  it('reports a SHA-256 definition hash with every listed tool', () => {
    const hashes = reportedHashes();
    expect(Object.keys(hashes)).toContain('create_entities');
    for (const hash of Object.values(hashes)) expect(hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('holds back a tool whose definition is not the approved one, and a new tool, until the pins say so', async () => {
    const { client } = await connect('legacy');
    const hashes = reportedHashes();
    const { create_entities: _new, ...others } = hashes;
    const pins = { ...others, open_nodes: 'f'.repeat(64) };
    const policy = { disabled: [], confirm: [], no_confirm: [], without_elicitation: 'run' as const };
    await satellite.runtime.apply([strict, { ...lenient, tool_policy: policy, tool_pins: pins }]);
    const found = await discovered(client, 'create entities open nodes graph');
    expect(found).not.toContain('lenient:create_entities');
    expect(found).not.toContain('lenient:open_nodes');
    expect(found).toContain('lenient:read_graph');
    const changed = await client.callTool(execute('lenient:open_nodes', { names: ['ada'] }));
    expect(textOf(changed)).toMatch(/changed its definition since a team admin approved it; it is held back/);
    const added = await client.callTool(execute('lenient:create_entities', { entities: [] }));
    expect(textOf(added)).toMatch(/is new since a team admin approved this server's tools/);

    // Approved: the pins now hold the listed definitions, and both are served again, without a restart.
    const outcome = await satellite.runtime.apply([strict, { ...lenient, tool_policy: policy, tool_pins: hashes }]);
    expect(outcome.unchanged).toContain(lenient.installation_id);
    expect(await discovered(client, 'create entities open nodes graph')).toEqual(
      expect.arrayContaining(['lenient:create_entities', 'lenient:open_nodes']),
    );
    const ran = await client.callTool(execute('lenient:open_nodes', { names: ['ada'] }));
    expect(ran.isError, textOf(ran)).toBeFalsy();
  });
});
