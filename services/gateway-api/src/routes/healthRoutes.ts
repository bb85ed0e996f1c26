import type { FastifyInstance } from 'fastify';

export type Readiness = { isReady(): boolean };

/**
 * Liveness answers while the process runs; readiness only while NATS is connected and the process is
 * not draining, so Kubernetes stops sending traffic before shutdown begins.
 */
export function registerHealthRoutes(app: FastifyInstance, readiness: Readiness): void {
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
    const ready = readiness.isReady();
    return reply.status(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not_ready' });
  });
}
