import { excludedChecks, type Readiness } from '@orbital/service';
import type { FastifyInstance } from 'fastify';

/**
 * Liveness answers while the process runs; readiness while every check passes (the process is started
 * and not draining, NATS is connected, the identity database answers), with each check named in the
 * body. `?exclude=database` leaves the database out of the verdict: the Kubernetes probe uses it, because
 * satellites' event intake and known sessions go on through a database outage, and a probe that failed
 * with the database would take every replica out of the Service at once.
 */
export function registerHealthRoutes(app: FastifyInstance, readiness: Pick<Readiness, 'report'>): void {
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (request, reply) => {
    const { ready, checks } = readiness.report(excludedChecks(request.url));
    return reply.status(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not_ready', checks });
  });
}
