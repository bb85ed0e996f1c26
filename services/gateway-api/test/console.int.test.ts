import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { type Bus, createBus } from '@orbital/bus';
import { createLogger } from '@orbital/logger';
import { createTestEnvironment, type TestEnvironment } from '@orbital/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleContentSecurityPolicy } from '../src/http/registerConsole.ts';
import { startTestGateway, type TestGateway } from './startTestGateway.ts';

const logger = createLogger({ name: 'console-test', level: 'silent' });
const page = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };

/** A console build as Vite lays it out: index.html naming hashed assets, with compressed twins. */
function fakeBuild(): string {
  const dir = mkdtempSync(join(tmpdir(), 'orbital-console-'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(
    join(dir, 'index.html'),
    '<!doctype html><script type="module" src="/assets/index-abc123.js"></script>',
  );
  const script = `console.log(${JSON.stringify('x'.repeat(2000))});`;
  writeFileSync(join(dir, 'assets/index-abc123.js'), script);
  writeFileSync(join(dir, 'assets/index-abc123.js.gz'), gzipSync(script));
  return dir;
}

describe('the web console, served by gateway-api', () => {
  let env: TestEnvironment;
  let bus: Bus;
  let gateway: FastifyInstance;
  let unbuilt: FastifyInstance;
  const started: TestGateway[] = [];
  const withConsole = async (dir: string) => {
    const built = await startTestGateway({ env, bus, logger, configEnv: { CONSOLE_DIR: dir } });
    started.push(built);
    return built.app;
  };

  beforeAll(async () => {
    env = await createTestEnvironment();
    bus = await createBus({ ...env.busOptions('console-test'), logger });
    gateway = await withConsole(fakeBuild());
    unbuilt = await withConsole(join(tmpdir(), 'orbital-no-console-here'));
  });
  afterAll(async () => {
    for (const built of started) await built.stop();
    await bus?.drain();
    await env?.cleanup();
  });

  it('serves index.html at / with a content security policy, revalidated on every load', async () => {
    const response = await gateway.inject({ url: '/', headers: page });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/text\/html/);
    expect(response.body).toContain('/assets/index-abc123.js');
    expect(response.headers['content-security-policy']).toBe(consoleContentSecurityPolicy);
    expect(response.headers['content-security-policy']).toContain("script-src 'self'");
    expect(response.headers['cache-control']).toBe('no-cache');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
  });

  it("answers the console's own paths with index.html, so a reload or a shared link works", async () => {
    for (const url of ['/teams/6f1c2a52-1f7e-4a59-9d77-5a0b0f1f9c11', '/settings?group=smtp', '/login']) {
      const response = await gateway.inject({ url, headers: page });
      expect(response.statusCode, url).toBe(200);
      expect(response.body).toContain('/assets/index-abc123.js');
      expect(response.headers['content-security-policy']).toBe(consoleContentSecurityPolicy);
    }
  });

  it('lets browsers keep hashed assets for a year, compressed when they accept it', async () => {
    const plain = await gateway.inject({ url: '/assets/index-abc123.js' });
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['content-type']).toMatch(/javascript/);
    expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const gzipped = await gateway.inject({ url: '/assets/index-abc123.js', headers: { 'accept-encoding': 'gzip' } });
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(gzipped.rawPayload.length).toBeLessThan(plain.rawPayload.length);
  });

  it('never answers the API, the documentation or a missing asset with the console', async () => {
    for (const url of ['/api/nothing-here', '/api/teams/x/nothing', '/assets/gone-123.js', '/healthz/extra']) {
      const response = await gateway.inject({ url, headers: page });
      expect(response.statusCode, url).toBe(404);
      expect(response.json(), url).toMatchObject({ success: false, error: { code: 'not_found' } });
    }
    const docs = await gateway.inject({ url: '/documentation/json', headers: page });
    expect(docs.statusCode).toBe(200);
    expect(docs.json()).toHaveProperty('openapi');
    // A script or an API client asking for JSON gets the API's 404, whatever the path.
    const json = await gateway.inject({ url: '/teams', headers: { accept: 'application/json' } });
    expect(json.statusCode).toBe(404);
    expect(json.json()).toMatchObject({ error: { code: 'not_found' } });
    const post = await gateway.inject({ method: 'POST', url: '/teams', headers: page, payload: {} });
    expect(post.statusCode).toBe(404);
  });

  it('answers a path too long for any route or file with the JSON 404, never an error', async () => {
    // Parameters longer than the router matches fall through to the console's file server, which will not
    // look up a path that long: an /api path, a page path and an asset path.
    const long = 'a'.repeat(3000);
    for (const url of [
      `/api/teams/${long}/mcp/installations/${long}`,
      `/${long}/${long}`,
      `/assets/${long}/${long}.js`,
    ]) {
      for (const headers of [page, { 'accept-encoding': 'br, gzip' }]) {
        const response = await gateway.inject({ url, headers });
        expect(response.statusCode, url.slice(0, 30)).toBe(404);
        expect(response.json()).toMatchObject({ success: false, error: { code: 'not_found' } });
      }
    }
  });

  it('says how to build the console when it is not built, and keeps the API working', async () => {
    const response = await unbuilt.inject({ url: '/', headers: page });
    expect(response.statusCode).toBe(404);
    expect(response.body).toContain('npm run build -w console');
    const api = await unbuilt.inject({ url: '/api/nothing-here', headers: page });
    expect(api.json()).toMatchObject({ error: { code: 'not_found' } });
  });
});
