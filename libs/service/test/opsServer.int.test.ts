import { afterEach, describe, expect, it } from 'vitest';
import { createMetrics } from '../src/createMetrics.ts';
import { createReadiness } from '../src/createReadiness.ts';
import { type OpsServer, startOpsServer } from '../src/startOpsServer.ts';

let server: OpsServer | undefined;
afterEach(async () => {
  await server?.close();
});

describe('ops listener', () => {
  it('answers liveness always, readiness as told, and Prometheus metrics with NATS latency', async () => {
    const metrics = createMetrics('test-service');
    let ready = false;
    let database = true;
    const readiness = createReadiness();
    readiness.add('process', () => ready);
    readiness.add('database', () => database);
    server = await startOpsServer({ port: 0, host: '127.0.0.1', registry: metrics.registry, readiness });
    const base = `http://127.0.0.1:${server.port}`;
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/readyz`)).status).toBe(503);
    ready = true;
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    // A failing check is named; a probe may leave one out of its verdict.
    database = false;
    const down = await fetch(`${base}/readyz`);
    expect(down.status).toBe(503);
    expect(await down.json()).toEqual({ status: 'not_ready', checks: { process: 'ok', database: 'failing' } });
    expect((await fetch(`${base}/readyz?exclude=database`)).status).toBe(200);
    // A check that does not gate is reported and leaves the verdict alone.
    database = true;
    let redis = false;
    readiness.add('redis', () => redis, { gates: false });
    const degraded = await fetch(`${base}/readyz`);
    expect(degraded.status).toBe(200);
    expect(await degraded.json()).toEqual({
      status: 'ready',
      checks: { process: 'ok', database: 'ok', redis: 'failing' },
    });
    redis = true;

    metrics.busObserver.requestSent('settings.setting.get', 0.002, 'ok');
    metrics.busObserver.requestHandled('settings.setting.get', 0.001, 'not_found');
    const text = await (await fetch(`${base}/metrics`)).text();
    expect(text).toContain(
      'orbital_nats_request_duration_seconds_count{service="test-service",subject="settings.setting.get",outcome="ok"} 1',
    );
    expect(text).toContain(
      'orbital_nats_handler_duration_seconds_count{service="test-service",subject="settings.setting.get",outcome="not_found"} 1',
    );
    expect(text).toContain('nodejs_eventloop_lag_seconds');
    expect((await fetch(`${base}/other`)).status).toBe(404);
  });
});
