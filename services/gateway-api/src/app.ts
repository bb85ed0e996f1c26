import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { Bus } from '@orbital/bus';
import type { Logger } from '@orbital/logger';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import type { EventRateLimiter } from './events/createEventRateLimiter.ts';
import {
  type AccessResolver,
  publicOnlyAccess,
  type RouteDefinition,
  registerRoute,
  requestIdFor,
} from './http/defineRoute.ts';
import { errorHandler, notFoundHandler } from './http/errorHandler.ts';
import { dbRoutes } from './routes/dbRoutes.ts';
import { eventRoutes } from './routes/eventRoutes.ts';
import { type Readiness, registerHealthRoutes } from './routes/healthRoutes.ts';

export type GatewayDeps = {
  bus: Bus;
  logger: Logger;
  readiness: Readiness;
  bodyLimitBytes?: number;
  trustProxy?: boolean;
  /** Setup migrates every schema; it may take longer than an ordinary request. */
  dbSetupTimeoutMs?: number;
  resolveAccess?: AccessResolver;
  /** Per-satellite limit of event batches on Redis (main.ts always gives one). */
  eventRateLimiter?: EventRateLimiter;
};

/** Builds the gateway without listening: main.ts listens, tests use inject() or listen on port 0. */
export async function buildGateway(deps: GatewayDeps): Promise<FastifyInstance> {
  const app = Fastify({
    // pino's Logger is a FastifyBaseLogger; the cast keeps the instance typed with Fastify's defaults.
    loggerInstance: deps.logger as FastifyBaseLogger,
    bodyLimit: deps.bodyLimitBytes ?? 1024 * 1024,
    trustProxy: deps.trustProxy ?? false,
    genReqId: requestIdFor,
    logController: new LogController({ requestIdLogLabel: 'requestId' }),
  });
  // Inputs are parsed by zod in registerRoute; the JSON schemas on routes exist for OpenAPI only.
  app.setValidatorCompiler(() => (data) => ({ value: data }));
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler(notFoundHandler);
  app.addHook('onSend', async (request, reply, payload) => {
    reply.header('x-request-id', request.id);
    return payload;
  });

  await app.register(swagger, {
    openapi: {
      info: {
        title: 'Orbital API',
        version: '0.1.0',
        description: 'The Orbital backend: settings, satellites, installations.',
      },
    },
  });
  await app.register(swaggerUi, { routePrefix: '/documentation' });

  registerHealthRoutes(app, deps.readiness);
  const routes: RouteDefinition[] = [
    ...(dbRoutes(deps.bus, { setupTimeoutMs: deps.dbSetupTimeoutMs ?? 60000 }) as RouteDefinition[]),
    ...(eventRoutes(deps.bus, {
      ...(deps.eventRateLimiter ? { rateLimiter: deps.eventRateLimiter } : {}),
    }) as RouteDefinition[]),
  ];
  for (const route of routes) registerRoute(app, route, deps.resolveAccess ?? publicOnlyAccess);
  return app;
}
