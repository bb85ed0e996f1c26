import cookie from '@fastify/cookie';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { AuditRecord } from '@orbital/audit';
import type { Bus } from '@orbital/bus';
import { fastifyTimeouts, type HttpTimeoutsEnv, httpTimeoutsEnv } from '@orbital/config';
import { AppError } from '@orbital/errors';
import type { Logger } from '@orbital/logger';
import { exceedsNestingDepth, maxNestingDepth } from '@orbital/nesting-depth';
import type { Readiness, ServiceMetrics } from '@orbital/service';
import { createLiveStreams, type LiveStreams } from '@orbital/sse';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import type { EventRateLimiter } from './events/createEventRateLimiter.ts';
import { clientErrorHandler, maxUrlLength } from './http/clientErrorHandler.ts';
import {
  type AccessResolver,
  publicOnlyAccess,
  type RouteDefinition,
  registerRoute,
  requestIdFor,
} from './http/defineRoute.ts';
import { securitySchemes } from './http/describeOperation.ts';
import { errorHandler, methodNotAllowedHandler, notFoundHandler } from './http/errorHandler.ts';
import { lazyChildLogger } from './http/lazyChildLogger.ts';
import { type ConsoleFallback, registerConsole } from './http/registerConsole.ts';
import { auditRoutes } from './routes/auditRoutes.ts';
import { clientActivityRoutes } from './routes/clientActivityRoutes.ts';
import { dbRoutes } from './routes/dbRoutes.ts';
import { eventRoutes } from './routes/eventRoutes.ts';
import { registerHealthRoutes } from './routes/healthRoutes.ts';
import { installationRoutes } from './routes/installationRoutes.ts';
import { installationStreamRoutes } from './routes/installationStreamRoutes.ts';
import { jobsRoutes } from './routes/jobsRoutes.ts';
import { registerMetrics } from './routes/metricsRoutes.ts';
import { remoteOAuthRoutes } from './routes/remoteOAuthRoutes.ts';
import { satelliteAdminRoutes } from './routes/satelliteAdminRoutes.ts';
import { satelliteRoutes } from './routes/satelliteRoutes.ts';
import { satelliteStreamRoutes } from './routes/satelliteStreamRoutes.ts';
import { settingsRoutes } from './routes/settingsRoutes.ts';
import { toolPolicyRoutes } from './routes/toolPolicyRoutes.ts';
import { createCommandWakeups } from './satellites/createCommandWakeups.ts';

/** The methods a path may answer, in the order an `Allow` header names them. */
const httpMethods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

export type GatewayDeps = {
  bus: Bus;
  logger: Logger;
  readiness: Pick<Readiness, 'report'>;
  bodyLimitBytes?: number;
  /** How long a client may take to send its head and its request (HTTP_*_TIMEOUT_MS); their defaults when not given. */
  httpTimeouts?: HttpTimeoutsEnv;
  /** Fastify's trustProxy: false, a hop count, or trusted proxy addresses (TRUST_PROXY). */
  trustProxy?: boolean | number | string[];
  /** Setup migrates every schema; it may take longer than an ordinary request. */
  dbSetupTimeoutMs?: number;
  /**
   * Identity's routes and the resolver of every route's access (createIdentityModule). Without it only
   * public routes can be resolved, which tests of the public database routes use.
   */
  identity?: { routes: RouteDefinition[]; resolveAccess: AccessResolver };
  /** The OAuth authorization server for satellite clients (createOAuthModule); needs `identity`. */
  oauth?: { routes: RouteDefinition[] };
  /** Sign-in with a code-hosting account and OpenID Connect single sign-on (createSsoModule); needs `identity`. */
  sso?: { routes: RouteDefinition[] };
  /** SSE streams: the live-stream registry (a gauge, and closed on shutdown), keep-alive and retry. */
  sse?: { live?: LiveStreams; keepAliveMs?: number; retryMs?: number };
  /** Whether /documentation is served (global.enable_swagger_docs); always when not given. */
  docsEnabled?: () => Promise<boolean>;
  /** The process's metrics; when given, /metrics serves them and HTTP latency is recorded by route. */
  metrics?: ServiceMetrics;
  /** Per-satellite limit of event batches on Redis (main.ts always gives one). */
  eventRateLimiter?: EventRateLimiter;
  /** The gateway's public base URL, the OpenAPI document's server (http://localhost:3000 when not given). */
  publicUrl?: string;
  /** The built web console (console/dist), served at `/`; without it page navigations say how to build it. */
  consoleDir?: string;
  /** Records gateway-api's own audit entries (in identity's outbox); the audit routes need it. */
  recordAudit?: (record: AuditRecord) => Promise<void>;
};

const tooDeep = () =>
  new AppError('validation_failed', `The request body nests deeper than ${maxNestingDepth} levels`, {
    details: [{ path: 'body', message: `must not nest objects and arrays more than ${maxNestingDepth} deep` }],
  });

const registeredRoutes = new WeakMap<FastifyInstance, readonly RouteDefinition[]>();

/** The routes a gateway registered, with their access; the access-matrix test checks each has a row. */
export function routesOf(app: FastifyInstance): readonly RouteDefinition[] {
  return registeredRoutes.get(app) ?? [];
}

/** Builds the gateway without listening: main.ts listens, tests use inject() or listen on port 0. */
export async function buildGateway(deps: GatewayDeps): Promise<FastifyInstance> {
  const app = Fastify({
    // pino's Logger is a FastifyBaseLogger; the cast keeps the instance typed with Fastify's defaults.
    loggerInstance: deps.logger as FastifyBaseLogger,
    bodyLimit: deps.bodyLimitBytes ?? 1024 * 1024,
    ...fastifyTimeouts(deps.httpTimeouts ?? httpTimeoutsEnv.parse({})),
    // A hop count trusts that many proxies nearest the gateway (Fastify's types take it as a function).
    trustProxy:
      typeof deps.trustProxy === 'number'
        ? (_address: string, hop: number) => hop < (deps.trustProxy as number)
        : (deps.trustProxy ?? false),
    genReqId: requestIdFor,
    clientErrorHandler,
    // Fastify's own request logs are two info lines per request (most of a start-up's output, and of a
    // busy gateway's); one debug line per answered request replaces them (LOG_LEVEL=debug shows them).
    logController: new LogController({ requestIdLogLabel: 'request_id', disableRequestLogging: true }),
    childLoggerFactory: lazyChildLogger,
  });
  app.addHook('onResponse', async (request, reply) => {
    if (!deps.logger.isLevelEnabled('debug')) return;
    request.log.debug(
      {
        method: request.method,
        route: request.routeOptions.url ?? null,
        status_code: reply.statusCode,
        duration_ms: Math.round(reply.elapsedTime),
      },
      'request answered',
    );
  });
  // Inputs are parsed by zod in registerRoute; the JSON schemas on routes exist for OpenAPI only.
  app.setValidatorCompiler(() => (data) => ({ value: data }));
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  app.setErrorHandler(errorHandler);
  app.addHook('onRequest', async (request) => {
    if (request.url.length > maxUrlLength) throw new AppError('uri_too_long');
  });
  // Checked as soon as the body is parsed, before access, NUL checks, schemas or logs walk it: those walks
  // (and JSON.stringify on the way to a service) call themselves per level and overflow past a few thousand.
  app.addHook('preValidation', async (request) => {
    if (exceedsNestingDepth(request.body)) throw tooDeep();
  });
  // Page navigations to the console's own paths get its index.html; everything else the JSON 404.
  let consoleFallback: ConsoleFallback = async () => false;
  app.setNotFoundHandler(async (request, reply) => {
    if (await consoleFallback(request, reply)) return reply;
    const path = request.url.split('?')[0] ?? '/';
    // Routes that match this very path, not the console's catch-all file server (a `*` wildcard).
    const allowed = httpMethods.filter((method) => {
      const route = app.findRoute({ method, url: path });
      return route !== null && !Object.hasOwn(route.params ?? {}, '*');
    });
    if (allowed.length > 0) methodNotAllowedHandler(request, reply, allowed);
    else notFoundHandler(request, reply);
    return reply;
  });
  consoleFallback = await registerConsole(app, { dir: deps.consoleDir, logger: deps.logger });
  app.addHook('onSend', async (request, reply, payload) => {
    reply.header('x-request-id', request.id);
    return payload;
  });

  // Streams outlive requests: end them when the gateway closes, or close() would wait for them.
  const live = deps.sse?.live ?? createLiveStreams();
  app.addHook('preClose', async () => live.closeAll());
  // Held command polls likewise: answered at once when the gateway closes.
  const wakeups = createCommandWakeups({ bus: deps.bus, logger: deps.logger });
  app.addHook('preClose', async () => wakeups.closeAll());
  app.addHook('onClose', async () => wakeups.stop());

  await app.register(cookie);
  // OAuth token, revocation and introspection requests are form-encoded (RFC 6749, 7009, 7662), and so
  // is the consent form. A repeated parameter stays an array, which the endpoints' schemas refuse.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    const fields: Record<string, string | string[]> = {};
    for (const [name, value] of new URLSearchParams(body as string)) {
      const seen = fields[name];
      fields[name] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
    }
    done(null, fields);
  });
  await app.register(swagger, {
    openapi: {
      info: {
        title: 'Orbital API',
        version: '0.1.0',
        description:
          'The Orbital backend: settings, teams, satellites, the MCP server catalogue and installations. Answers are `{success: true, data}`; errors `{success: false, error: {code, message, details?}}` with the status of the code.',
      },
      servers: [{ url: deps.publicUrl ?? 'http://localhost:3000', description: 'this gateway' }],
      components: { securitySchemes },
    },
  });
  // The documentation follows global.enable_swagger_docs.
  if (deps.docsEnabled) {
    const docsEnabled = deps.docsEnabled;
    app.addHook('onRequest', async (request, reply) => {
      if (!request.url.startsWith('/documentation') || (await docsEnabled())) return;
      notFoundHandler(request, reply);
      return reply;
    });
  }
  await app.register(swaggerUi, { routePrefix: '/documentation' });

  registerHealthRoutes(app, deps.readiness);
  if (deps.metrics) registerMetrics(app, deps.metrics);
  const streams = { live, keepAliveMs: deps.sse?.keepAliveMs ?? 30000, retryMs: deps.sse?.retryMs ?? 3000 };
  const routes: RouteDefinition[] = [
    ...dbRoutes(deps.bus, { setupTimeoutMs: deps.dbSetupTimeoutMs ?? 60000 }),
    ...(deps.identity?.routes ?? []),
    ...settingsRoutes(deps.bus),
    ...(deps.oauth?.routes ?? []),
    ...(deps.sso?.routes ?? []),
    ...satelliteRoutes(deps.bus, wakeups),
    ...satelliteAdminRoutes(deps.bus),
    ...eventRoutes(deps.bus, {
      ...(deps.eventRateLimiter ? { rateLimiter: deps.eventRateLimiter } : {}),
    }),
    ...installationRoutes(deps.bus),
    ...remoteOAuthRoutes(deps.bus, { publicUrl: deps.publicUrl ?? 'http://localhost:3000' }),
    ...toolPolicyRoutes(deps.bus),
    ...installationStreamRoutes(deps.bus, deps.logger, streams),
    ...satelliteStreamRoutes(deps.bus, deps.logger, streams),
    ...clientActivityRoutes(deps.bus, deps.logger, streams),
    ...jobsRoutes(deps.bus),
    ...(deps.recordAudit ? auditRoutes({ bus: deps.bus, logger: deps.logger, streams, record: deps.recordAudit }) : []),
  ];
  for (const route of routes) registerRoute(app, route, deps.identity?.resolveAccess ?? publicOnlyAccess);
  registeredRoutes.set(app, routes);
  return app;
}
