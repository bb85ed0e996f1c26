import { loadConfig } from '@orbital/config';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSatelliteApp, type SatelliteApp } from '../src/app.ts';
import { createConfigSync } from '../src/backend/createConfigSync.ts';
import { satelliteEnv } from '../src/config.ts';
import { createRecordingEventSink } from '../src/events/createRecordingEventSink.ts';
import { createSettingsCache, settingsHash } from '../src/settings/createSettingsCache.ts';
import { createManualScheduler } from './createManualScheduler.ts';
import { errorReply, type ScriptedBackend, startScriptedBackend } from './createScriptedBackend.ts';
import { silentLogger } from './helpers.ts';
import { createLinkParts } from './linkFixture.ts';

/**
 * The settings cache end to end inside the satellite: what the backend sends with its configuration
 * lands in the cache, and `GET /` and `/documentation` follow the cache without a restart.
 */
let backend: ScriptedBackend;
let satellite: SatelliteApp;
/** What the scripted backend answers to GET /config; a number answers that HTTP error instead. */
let served: unknown = { servers: [] };

const env = (extra: Record<string, string> = {}) =>
  loadConfig(satelliteEnv, { LOG_LEVEL: 'silent', SATELLITE_ALLOW_UNAUTHENTICATED_GLOBAL: 'true', ...extra });

beforeEach(async () => {
  backend = await startScriptedBackend();
  backend.respond((request) => {
    if (!request.path.endsWith('/config')) return errorReply(404, 'not_found');
    if (typeof served === 'number') return errorReply(served, 'unavailable');
    return { status: 200, body: { success: true, data: served } };
  });
});
afterEach(async () => {
  await satellite?.close();
  await backend.close();
});

async function linkedSatellite(extraEnv: Record<string, string> = {}) {
  const config = env(extraEnv);
  const settings = createSettingsCache({
    initial: { enable_swagger_docs: config.SATELLITE_ENABLE_DOCS },
    source: 'defaults',
  });
  satellite = createSatelliteApp({
    config,
    servers: [],
    events: createRecordingEventSink(),
    logger: silentLogger,
    settings,
  });
  const scheduler = createManualScheduler();
  const parts = await createLinkParts({ backendUrl: backend.url, scheduler, logger: silentLogger });
  await parts.identity.ensure();
  const configSync = createConfigSync({
    api: parts.api,
    runtime: satellite.runtime,
    events: createRecordingEventSink(),
    logger: silentLogger,
    scheduler,
    intervalMs: 300000,
    settings,
  });
  return { configSync, settings };
}

const get = (url: string) => satellite.app.inject({ method: 'GET', url });
const health = async () => (await get('/')).json().settings;

describe('settings cache', () => {
  it('turns /documentation on and off as the backend sends global.enable_swagger_docs', async () => {
    const { configSync } = await linkedSatellite();
    // Before the first configuration: the setting's default, docs on.
    expect((await get('/documentation')).statusCode).toBe(200);
    expect(await health()).toMatchObject({ enable_swagger_docs: true, source: 'defaults', updated_at: null });

    served = { servers: [], settings: { enable_swagger_docs: false } };
    await configSync.sync('configure');
    for (const path of ['/documentation', '/documentation/json']) {
      const response = await get(path);
      expect(response.statusCode).toBe(404);
      // Exactly as an unknown path, so nothing tells a caller the docs exist.
      expect(response.json()).toMatchObject({ statusCode: 404, error: 'Not Found' });
    }
    const off = await health();
    expect(off).toMatchObject({ enable_swagger_docs: false, source: 'backend' });
    expect(off.hash).toBe(settingsHash({ enable_swagger_docs: false }));
    expect(Number.isNaN(Date.parse(off.updated_at))).toBe(false);

    served = { servers: [], settings: { enable_swagger_docs: true } };
    await configSync.sync('interval');
    const docs = await get('/documentation/json');
    expect(docs.statusCode).toBe(200);
    expect(docs.json().paths).toHaveProperty('/mcp');
    expect((await health()).hash).toBe(settingsHash({ enable_swagger_docs: true }));
  });

  it('keeps the settings it holds when a reply has none, has bad ones, or fails', async () => {
    const { configSync, settings } = await linkedSatellite();
    served = { servers: [], settings: { enable_swagger_docs: false } };
    await configSync.sync('configure');
    const held = settings.current();

    served = { servers: [] };
    await configSync.sync('interval');
    served = { servers: [], settings: { enable_swagger_docs: 'no' } };
    await configSync.sync('interval');
    served = 503;
    await expect(configSync.sync('interval')).rejects.toThrow();

    expect(settings.current()).toEqual(held);
    expect((await get('/documentation')).statusCode).toBe(404);
  });

  it('uses SATELLITE_ENABLE_DOCS as its default until the backend says otherwise', async () => {
    const { configSync } = await linkedSatellite({ SATELLITE_ENABLE_DOCS: 'false' });
    expect((await get('/documentation')).statusCode).toBe(404);
    expect(await health()).toMatchObject({ enable_swagger_docs: false, source: 'defaults' });

    served = { servers: [], settings: { enable_swagger_docs: true } };
    await configSync.sync('configure');
    expect((await get('/documentation')).statusCode).toBe(200);
  });
});
