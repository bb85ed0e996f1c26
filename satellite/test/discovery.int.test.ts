import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { loadConfig } from '@orbital/config';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSatelliteApp, type SatelliteApp } from '../src/app.ts';
import { satelliteEnv } from '../src/config.ts';
import { createRecordingEventSink } from '../src/events/createRecordingEventSink.ts';
import { createFuseToolSearch } from '../src/search/createFuseToolSearch.ts';
import type { DiscoveredTool } from '../src/search/toDiscoveredTool.ts';
import { toSearchableTool } from '../src/search/toSearchableTool.ts';
import {
  connectClient,
  everythingServer,
  filesystemServer,
  memoryServer,
  referenceServer,
  sequentialThinkingServer,
  silentLogger,
  textOf,
} from './helpers.ts';

/**
 * discover_mcp_tools through the real /mcp, over the four reference servers an agent meets first:
 * plain requests find the tool meant, operator queries answer exactly as plain Fuse.js does, and
 * `include_schemas: false` gives the five plain fields alone.
 */
const events = createRecordingEventSink();
let satellite: SatelliteApp;
let client: Client;

beforeAll(async () => {
  const workDir = mkdtempSync(join(tmpdir(), 'satellite-discovery-'));
  satellite = createSatelliteApp({
    config: loadConfig(satelliteEnv, {
      LOG_LEVEL: 'silent',
      SATELLITE_ALLOW_UNAUTHENTICATED_GLOBAL: 'true',
      PROCESS_IDLE_TIMEOUT_MS: '0',
    }),
    servers: [
      referenceServer('filesystem', [filesystemServer, workDir]),
      referenceServer('memory', [memoryServer], { MEMORY_FILE_PATH: join(workDir, 'memory.jsonl') }),
      referenceServer('everything', [everythingServer, 'stdio']),
      referenceServer('sequential-thinking', [sequentialThinkingServer]),
    ],
    events,
    logger: silentLogger,
  });
  await satellite.start();
  const address = await satellite.app.listen({ port: 0, host: '127.0.0.1' });
  client = await connectClient(new URL('/mcp', address), 'discovery-test');
}, 60000);

afterAll(async () => {
  await client?.close().catch(() => {});
  await satellite?.close();
});

async function discover(args: Record<string, unknown>) {
  const result = await client.callTool({ name: 'discover_mcp_tools', arguments: args });
  return JSON.parse(textOf(result)) as { tools: DiscoveredTool[]; total_found: number; query: string };
}

async function top3(query: string): Promise<string[]> {
  return (await discover({ query, limit: 3 })).tools.map((tool) => tool.tool_path);
}

describe('discover_mcp_tools over the reference servers', () => {
  it.each([
    ['add two numbers', 'everything:get-sum'],
    ['show me a small picture', 'everything:get-tiny-image'],
    ['sum up two numbers', 'everything:get-sum'],
    ['create a new folder', 'filesystem:create_directory'],
    ['give me a small picture', 'everything:get-tiny-image'],
    ['repeat back what I say', 'everything:echo'],
    ['rename a file', 'filesystem:move_file'],
    ['files matching a glob pattern', 'filesystem:search_files'],
    ['when was this file last modified', 'filesystem:get_file_info'],
    ['forget an entity', 'memory:delete_entities'],
    ['link two entities with a relationship', 'memory:create_relations'],
    ['think through a hard problem step by step', 'sequential-thinking:sequentialthinking'],
    ['compress a file with gzip', 'everything:gzip-file-as-resource'],
    ['creat a directry', 'filesystem:create_directory'],
  ])('finds the tool meant by %j in the top 3', async (query, expected) => {
    expect(await top3(query)).toContain(expected);
  });

  it('answers operator queries exactly as plain Fuse.js with the spec options does', async () => {
    const tools = satellite.runtime.onlineTools().map(toSearchableTool);
    const fuse = createFuseToolSearch();
    fuse.setTools(tools);
    for (const query of [
      "'file",
      '^read',
      'directory$',
      '=echo',
      'file !^read',
      'entities | relations',
      "'tiny image",
    ]) {
      const expected = fuse.search(query, 10).map((r) => ({ tool_path: r.tool.tool_path, relevance_score: r.score }));
      const got = (await discover({ query, limit: 10 })).tools.map((t) => ({
        tool_path: t.tool_path,
        relevance_score: t.relevance_score,
      }));
      expect(got, query).toEqual(expected);
      expect(got.length, query).toBeGreaterThan(0);
    }
  });

  it('counts in total_found every tool that matches, not the number returned', async () => {
    const tools = satellite.runtime.onlineTools().map(toSearchableTool);
    const fuse = createFuseToolSearch();
    fuse.setTools(tools);
    for (const query of ["'file", 'file', 'entities']) {
      const all = await discover({ query, limit: 50 });
      const few = await discover({ query, limit: 2 });
      expect(few.tools, query).toHaveLength(2);
      expect(few.total_found, query).toBe(all.tools.length);
      expect(few.total_found, query).toBeGreaterThan(2);
    }
    // An operator query matches exactly what plain Fuse.js matches.
    expect((await discover({ query: "'file", limit: 1 })).total_found).toBe(fuse.search("'file", tools.length).length);
  });

  it('returns each tool with its input schema and annotations, and the spec shape without them', async () => {
    const full = await discover({ query: 'add two numbers' });
    const sum = full.tools.find((tool) => tool.tool_path === 'everything:get-sum');
    expect(sum?.input_schema).toMatchObject({
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
    });
    expect(sum?.annotations).toMatchObject({ readOnlyHint: true });
    for (const tool of full.tools) {
      expect(tool.relevance_score).toBeGreaterThanOrEqual(0);
      expect(tool.relevance_score).toBeLessThanOrEqual(1);
    }
    const scores = full.tools.map((tool) => tool.relevance_score);
    expect(scores).toEqual([...scores].sort((a, b) => a - b));

    const bare = await discover({ query: 'add two numbers', include_schemas: false });
    expect(bare.tools.map((tool) => tool.tool_path)).toEqual(full.tools.map((tool) => tool.tool_path));
    for (const tool of bare.tools) {
      expect(Object.keys(tool).sort()).toEqual([
        'description',
        'relevance_score',
        'server_name',
        'tool_path',
        'transport',
      ]);
    }
  });

  it('refuses a non-boolean include_schemas with a clear error', async () => {
    const result = await client.callTool({
      name: 'discover_mcp_tools',
      arguments: { query: 'echo', include_schemas: 'no' },
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/"include_schemas" must be true or false/);
  });

  it('refuses a query longer than 1000 characters, naming the field, and serves one of 1000', async () => {
    const long = await client.callTool({
      name: 'discover_mcp_tools',
      arguments: { query: 'read a file | '.repeat(72) },
    });
    expect(long.isError).toBe(true);
    expect(textOf(long)).toMatch(/"query" must be at most 1000 characters/);
    const paragraph = `add two numbers ${'and then some more words '.repeat(50)}`.slice(0, 1000);
    expect((await discover({ query: paragraph })).tools.map((tool) => tool.tool_path)).toContain('everything:get-sum');
  });

  it('merges several phrasings of one need (queries) by reciprocal rank', async () => {
    // Each phrasing is ranked on its own; the tool they all rank well comes first.
    const alone = await discover({ query: 'make a folder', limit: 5 });
    const merged = await discover({ query: 'make a folder', queries: ['mkdir', 'new directory'], limit: 5 });
    expect(merged.tools[0]?.tool_path).toBe('filesystem:create_directory');
    expect(merged.query).toBe('make a folder');
    expect(alone.tools.map((tool) => tool.tool_path)).toContain('filesystem:create_directory');
    const scores = merged.tools.map((tool) => tool.relevance_score);
    expect(scores).toEqual([...scores].sort((a, b) => a - b));
    for (const score of scores) expect(score).toBeGreaterThanOrEqual(0);
    // A phrasing that finds nothing takes nothing away from the others.
    const withNoise = await discover({ query: 'zzqxjv', queries: ['add two numbers'], limit: 3 });
    expect(withNoise.tools[0]?.tool_path).toBe('everything:get-sum');
  });

  it('refuses bad queries with a clear error naming the phrasing', async () => {
    const cases: Array<[unknown, RegExp]> = [
      ['add numbers', /"queries" must be an array of strings/],
      [['add numbers', 7], /"queries\.1" must be a string/],
      [['add numbers', '  '], /"queries\.1" must not be blank/],
      [['x'.repeat(1001)], /"queries\.0" must be at most 1000 characters/],
      [Array.from({ length: 11 }, () => 'add numbers'), /"queries" must hold at most 10 phrasings/],
    ];
    for (const [queries, message] of cases) {
      const result = await client.callTool({ name: 'discover_mcp_tools', arguments: { query: 'sum', queries } });
      expect(result.isError, String(message)).toBe(true);
      expect(textOf(result)).toMatch(message);
    }
  });

  it('finds nothing for words no tool holds, and caps results at the limit', async () => {
    expect((await discover({ query: 'zzqxjv wqkzv' })).tools).toEqual([]);
    expect((await discover({ query: 'file', limit: 2 })).tools).toHaveLength(2);
  });
});
