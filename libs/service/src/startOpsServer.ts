import { createServer, type Server } from 'node:http';
import type { Registry } from 'prom-client';
import { excludedChecks, type Readiness } from './createReadiness.ts';

export type OpsServer = { port: number; close(): Promise<void> };

/**
 * The operations listener of a process: `/healthz` (alive), `/readyz` (able to take work: 503 before
 * start-up finished, from the first moment of shutdown, so Kubernetes stops routing before the drain,
 * and while NATS or the database is away; the body names each check) and `/metrics` (Prometheus text). Separate from any public listener, so probes and scrapes
 * never compete with traffic and are never exposed by an ingress.
 */
export async function startOpsServer(options: {
  port: number;
  host?: string;
  registry: Registry;
  readiness: Readiness;
}): Promise<OpsServer> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (path === '/healthz') {
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    } else if (path === '/readyz') {
      const { ready, checks } = options.readiness.report(excludedChecks(request.url ?? ''));
      response
        .writeHead(ready ? 200 : 503, { 'content-type': 'application/json' })
        .end(JSON.stringify({ status: ready ? 'ready' : 'not_ready', checks }));
    } else if (path === '/metrics') {
      options.registry.metrics().then(
        (text) => response.writeHead(200, { 'content-type': options.registry.contentType }).end(text),
        () => response.writeHead(500).end(),
      );
    } else {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(options.port, options.host ?? '0.0.0.0', resolve));
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : options.port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
