import type { Client } from '@modelcontextprotocol/client';
import { loadConfig } from '@orbital/config';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSatelliteApp, type SatelliteApp } from '../src/app.ts';
import { satelliteEnv } from '../src/config.ts';
import { createRecordingEventSink } from '../src/events/createRecordingEventSink.ts';
import { createSettingsCache } from '../src/settings/createSettingsCache.ts';
import { connectClient, everythingServer, referenceServer, silentLogger, textOf } from './helpers.ts';
import { startLocalEmbeddings } from './startLocalEmbeddings.ts';

/**
 * A satellite whose settings (as a standalone file or the backend gives them) name an embeddings
 * endpoint with a key: the project's own embeddings process, which refuses requests without that key.
 * Discovery then ranks by meaning and says so; the key never shows.
 */
const key = 'embeddings-key-7f3a9c';
let local: Awaited<ReturnType<typeof startLocalEmbeddings>>;
let satellite: SatelliteApp;
let client: Client;
let address: string;

beforeAll(async () => {
  local = await startLocalEmbeddings({ EMBEDDINGS_API_KEY: key });
  const settings = createSettingsCache({ initial: { enable_swagger_docs: true }, source: 'defaults' });
  settings.update(
    {
      enable_swagger_docs: true,
      discovery: { embeddings: { url: local.url, model: local.model, api_key: key }, model_timeout_ms: 10_000 },
    },
    'file',
  );
  satellite = createSatelliteApp({
    config: loadConfig(satelliteEnv, { LOG_LEVEL: 'silent', SATELLITE_ALLOW_UNAUTHENTICATED_GLOBAL: 'true' }),
    servers: [referenceServer('everything', [everythingServer, 'stdio'])],
    events: createRecordingEventSink(),
    logger: silentLogger,
    settings,
  });
  await satellite.start();
  address = await satellite.app.listen({ port: 0, host: '127.0.0.1' });
  client = await connectClient(new URL('/mcp', address), 'discovery-models-test');
}, 120_000);

afterAll(async () => {
  await client?.close().catch(() => {});
  await satellite?.close();
  await local?.stop();
});

describe('discovery with an embeddings endpoint from the settings', () => {
  it('ranks by meaning once the tool vectors are in, and says how each call was ranked', async () => {
    const discover = async (args: Record<string, unknown>) =>
      JSON.parse(textOf(await client.callTool({ name: 'discover_mcp_tools', arguments: args }))) as {
        tools: Array<{ tool_path: string }>;
        ranking?: { method: string; meaning?: string };
      };
    // The first call makes the team's index, which asks for the vectors; it may come before them.
    const first = await discover({ query: 'add two numbers' });
    expect(first.ranking?.method).toMatch(/^words/);
    await satellite.discovery.vectorsReady();
    const answer = await discover({ query: 'add two numbers', queries: ['sum'] });
    expect(answer.ranking).toEqual({ method: 'words+meaning', meaning: 'used' });
    expect(answer.tools[0]?.tool_path).toBe('everything:get-sum');
    const operators = await discover({ query: '^get' });
    expect(operators).not.toHaveProperty('ranking');
    expect(satellite.discovery.stats().models.embeddings.used).toBeGreaterThanOrEqual(1);
  }, 120_000);

  it('shows the endpoint on GET / without its key', async () => {
    const health = await (await fetch(address)).text();
    expect(health).not.toContain(key);
    expect(JSON.parse(health).settings.discovery).toEqual({
      embeddings: { url: local.url, model: local.model, api_key_set: true },
      model_timeout_ms: 10_000,
    });
  });
});
