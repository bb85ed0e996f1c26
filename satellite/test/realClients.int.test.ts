import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientConfigurations } from '../../console/src/pages/clientConfigurations.ts';
import type { SatelliteApp } from '../src/app.ts';
import { stdioServer, textOf } from './helpers.ts';
import { startTestSatellite } from './startTestSatellite.ts';

/**
 * The clients people point at a satellite, each against the same one: the SDK's v2 client pinned to
 * 2026-07-28 and in auto mode, the v1 client (2025-11-25 only, still what most tools embed), and the
 * MCP Inspector's command line.
 */

let satellite: SatelliteApp;
let url: URL;

beforeAll(async () => {
  ({ satellite, url } = await startTestSatellite({ servers: [stdioServer('fixture')] }));
}, 60000);

afterAll(async () => {
  await satellite?.close();
});

const discover = { name: 'discover_mcp_tools', arguments: { query: 'echo' } };
const execute = { name: 'execute_mcp_tool', arguments: { tool_path: 'fixture:echo', arguments: { text: 'hi there' } } };

describe('real MCP clients against the satellite', () => {
  it.each([
    ['pinned to 2026-07-28', { pin: '2026-07-28' }, 'modern'],
    ['in auto mode', 'auto', 'modern'],
    ['in its default (2025) mode', 'legacy', 'legacy'],
  ] as const)('the SDK v2 client %s', async (_label, mode, era) => {
    const client = new Client({ name: 'v2', version: '1.0.0' }, { versionNegotiation: { mode } });
    await client.connect(new StreamableHTTPClientTransport(url));
    expect(client.getProtocolEra()).toBe(era);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['discover_mcp_tools', 'execute_mcp_tool']);
    expect(textOf(await client.callTool(discover))).toContain('fixture:echo');
    expect((await client.callTool(execute)).content).toEqual([{ type: 'text', text: 'hi there' }]);
    await client.close();
  });

  it('the SDK v1 client', async () => {
    const client = new V1Client({ name: 'v1', version: '1.0.0' });
    const transport = new V1Transport(url);
    await client.connect(transport);
    expect(client.getServerVersion()?.name).toBe('service-satellite');
    expect(transport.sessionId).toMatch(/^[A-Za-z0-9_-]{8}\.[A-Za-z0-9_-]{43}$/);
    expect(textOf(await client.callTool(discover))).toContain('fixture:echo');
    expect((await client.callTool(execute)).content).toEqual([{ type: 'text', text: 'hi there' }]);
    await client.close();
  });

  it('the SDK script the console shows under "Connect a client" runs to its end and exits', async () => {
    const sdk = clientConfigurations(url.href, null).find((c) => c.id === 'sdk');
    // As a person copies it, with this satellite's fixture server in place of Everything.
    const script = (sdk?.text ?? '')
      .replace("'everything:echo'", "'fixture:echo'")
      .replace("{ message: 'hello' }", "{ text: 'hello from the snippet' }");
    expect(script).toContain('fixture:echo');
    // Under the repository's node_modules, so the script's imports resolve as in a project that installed the SDK.
    const folder = mkdtempSync(join(resolve(import.meta.dirname, '../../node_modules/.cache'), 'connect-snippet-'));
    try {
      writeFileSync(join(folder, 'agent.mjs'), script);
      // A script that leaves its session open never exits: the timeout kills it and the call fails.
      const ran = await promisify(execFile)(process.execPath, [join(folder, 'agent.mjs')], { timeout: 20000 });
      expect(ran.stdout).toContain('hello from the snippet');
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('the MCP Inspector command line, offline', async () => {
    const launcher = join(
      dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/inspector/package.json')),
      'clients/launcher/build/index.js',
    );
    // Its catalog and settings go to a home of its own, not the user's.
    const home = mkdtempSync(join(tmpdir(), 'inspector-home-'));
    const inspector = (...args: string[]) =>
      promisify(execFile)(process.execPath, [launcher, '--cli', url.href, ...args], {
        env: { PATH: process.env.PATH ?? '', HOME: home },
        timeout: 60000,
      });
    const listed = JSON.parse((await inspector('--method', 'tools/list')).stdout) as { tools: { name: string }[] };
    expect(listed.tools.map((t) => t.name)).toEqual(['discover_mcp_tools', 'execute_mcp_tool']);
    const found = await inspector(
      '--method',
      'tools/call',
      '--tool-name',
      'discover_mcp_tools',
      '--tool-arg',
      'query=echo',
    );
    expect(found.stdout).toContain('fixture:echo');
    const ran = JSON.parse(
      (
        await inspector(
          '--method',
          'tools/call',
          '--tool-name',
          'execute_mcp_tool',
          '--tool-arg',
          'tool_path=fixture:echo',
          'arguments={"text":"from the inspector"}',
        )
      ).stdout,
    );
    expect(ran).toEqual({ content: [{ type: 'text', text: 'from the inspector' }] });
  });
});
