import { excludedChecks, type Readiness } from '@orbital/service';
import type { FastifyInstance } from 'fastify';

/**
 * Liveness answers while the process runs; readiness while what every route class needs is there: the
 * process is started and not draining, its HTTP listener open, NATS connected. The identity database and
 * Redis are reported too (each check named in the body) but do not make the gateway unready: every
 * replica shares them, so a probe failing on them would take every replica out of the Service at once,
 * and with them event intake (NATS only), known sessions and known satellite keys, which go on through
 * either outage; the routes that need the database or Redis answer 503 themselves. `?exclude=<check>`
 * leaves a check out of the verdict.
 */
export function registerHealthRoutes(app: FastifyInstance, readiness: Pick<Readiness, 'report'>): void {
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (request, reply) => {
    const { ready, checks } = readiness.report(excludedChecks(request.url));
    return reply.status(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not_ready', checks });
  });
}
