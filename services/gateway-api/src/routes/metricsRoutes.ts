import type { ServiceMetrics } from '@orbital/service';
import type { FastifyInstance } from 'fastify';

/**
 * `/metrics` on the gateway's own listener (Prometheus text) and the latency of every request by
 * route pattern (never the raw URL: ids in paths would make unbounded series) and status class.
 */
export function registerMetrics(app: FastifyInstance, metrics: ServiceMetrics): void {
  const duration = metrics.histogram(
    'orbital_http_request_duration_seconds',
    'HTTP requests gateway-api answered, by method, route pattern and status code',
    ['method', 'route', 'status'],
  );
  app.addHook('onResponse', async (request, reply) => {
    duration.observe(
      { method: request.method, route: request.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
  });
  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    reply.header('content-type', metrics.registry.contentType);
    return metrics.registry.metrics();
  });
}
