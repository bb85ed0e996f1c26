import { fastifyTimeouts } from '@orbital/config';
import type { ServerConfiguration } from '@orbital/contracts';
import { introspectionPath, mcpScope } from '@orbital/contracts';
import type { Logger } from '@orbital/logger';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import { createBearerAuthenticator } from './auth/createBearerAuthenticator.ts';
import { createIntrospectionVerifier, type IntrospectionCredential } from './auth/createIntrospectionVerifier.ts';
import { registerProtectedResourceMetadata } from './auth/protectedResourceMetadata.ts';
import { configurationProblems, type SatelliteEnv, satelliteTypeOf } from './config.ts';
import { createRedactingEventSink, secretValuesOf } from './events/createRedactingEventSink.ts';
import type { EventSink } from './events/eventSink.ts';
import { createArgumentValidator } from './gateway/createArgumentValidator.ts';
import { createCallRouting } from './gateway/createCallRouting.ts';
import { createMcpEndpoint } from './gateway/createMcpEndpoint.ts';
import { createToolHandlers } from './gateway/createMetaToolServer.ts';
import { createReplicaForwarder } from './gateway/createReplicaForwarder.ts';
import { createSessionlessClients, type SessionlessClients } from './gateway/createSessionlessClients.ts';
import { createSessionStore, type SessionStore } from './gateway/createSessionStore.ts';
import { createSuspendedCalls, type SuspendedCalls } from './gateway/createSuspendedCalls.ts';
import { registerMcpRoutes } from './gateway/registerMcpRoutes.ts';
import { satelliteOpenApi } from './gateway/satelliteOpenApi.ts';
import { describeServers } from './health/describeServers.ts';
import { createServerRuntime, type ServerRuntime } from './runtime/createServerRuntime.ts';
import type { UpstreamTokens } from './runtime/upstreamTokens.ts';
import { createDiscoveryEngine, type DiscoveryEngine } from './search/createDiscoveryEngine.ts';
import { resolveDiscoveryModels } from './search/resolveDiscoveryModels.ts';
import { createSettingsCache, type SettingsCache } from './settings/createSettingsCache.ts';
import { shownSettings } from './settings/shownSettings.ts';

export type SatelliteApp = {
  app: FastifyInstance;
  runtime: ServerRuntime;
  sessions: SessionStore;
  /** 2026-07-28 clients followed for the recent clients list (they open no session). */
  clients: SessionlessClients;
  /** Discovery, for its statistics (metrics) and for tests waiting on tool vectors. */
  discovery: DiscoveryEngine;
  /** Calls of 2026-07-28 clients waiting for the client's answer to the server's requests. */
  suspended: SuspendedCalls;
  /** The global settings the satellite acts on; the backend link's configuration sync fills it. */
  settings: SettingsCache;
  /**
   * Starts the MCP servers in the background (the HTTP listener is the caller's, so tests can use any
   * port). The promise settles once each server's first attempt has, and never rejects: main.ts
   * listens first and does not wait for it; tests do.
   */
  start(): Promise<void>;
  /** Sessions first, then servers and their process groups, then the HTTP server. */
  close(): Promise<void>;
};

/** Wires the satellite without touching the environment: main.ts and the tests build the same app. */
export function createSatelliteApp(options: {
  config: SatelliteEnv;
  servers: readonly ServerConfiguration[];
  events: EventSink;
  logger: Logger;
  /** Discovery (word ranking, and meaning when an endpoint is configured); tests may hand their own. */
  discovery?: DiscoveryEngine;
  /**
   * What the satellite presents to the introspection endpoint: its registry API key, from the backend
   * link (`link.introspectionCredential`). Required in oauth mode.
   */
  introspectionCredential?: IntrospectionCredential;
  /** How introspection reaches the backend; tests may count calls. */
  fetch?: typeof fetch;
  now?: () => number;
  /** Backend mode: what `GET /` reports about registration, heartbeats, polling and the event queue. */
  link?: { status(): Record<string, unknown> };
  /** Backend mode: access tokens for remote servers behind OAuth (`link.upstreamTokens`). */
  upstreamTokens?: UpstreamTokens;
  /**
   * The settings cache, shared with the backend link (main.ts). Without one the satellite holds its
   * defaults: the global settings' defaults, with SATELLITE_ENABLE_DOCS for `enable_swagger_docs`.
   */
  settings?: SettingsCache;
}): SatelliteApp {
  const { config, logger } = options;
  // Every event of an installation leaves with its secret values replaced, whatever a server echoed.
  let runtimeRef: ServerRuntime | undefined;
  const events = createRedactingEventSink(options.events, (installationId) =>
    secretValuesOf(runtimeRef?.configuration(installationId), options.upstreamTokens?.issued?.(installationId)),
  );
  const problems = configurationProblems(config);
  if (problems.length) {
    throw new Error(`Invalid configuration: ${problems.map((p) => `${p.variable}: ${p.message}`).join('; ')}`);
  }
  const oauth = config.SATELLITE_AUTH_MODE === 'oauth';
  const runtime = createServerRuntime({
    servers: options.servers,
    events,
    logger,
    // With authentication a client sees one team's tools, so names need no team qualifier.
    teamScoped: oauth,
    ...(options.upstreamTokens ? { upstreamTokens: options.upstreamTokens } : {}),
    ...(options.now ? { now: options.now } : {}),
    settings: {
      connection: {
        handshakeTimeoutMs: config.MCP_HANDSHAKE_TIMEOUT_MS,
        requestTimeoutMs: config.MCP_REQUEST_TIMEOUT_MS,
        requestMaxTotalMs: config.MCP_REQUEST_MAX_TOTAL_MS,
        maxMessageBytes: config.MCP_MAX_MESSAGE_BYTES,
        relistIntervalMs: config.TOOL_RELIST_INTERVAL_MS,
      },
      stdio: {
        restartBackoffMs: config.RESTART_BACKOFF_MS,
        stableAfterMs: config.RESTART_STABLE_AFTER_MS,
        idleTimeoutMs: config.PROCESS_IDLE_TIMEOUT_MS,
        idleCheckIntervalMs: config.PROCESS_IDLE_CHECK_INTERVAL_MS,
        killGraceMs: config.PROCESS_KILL_GRACE_MS,
        stderrIntervalMs: config.STDERR_BATCH_INTERVAL_MS,
        resourceLimits: {
          memoryMb: config.PROCESS_MEMORY_LIMIT_MB,
          cpuSeconds: config.PROCESS_CPU_LIMIT_SECONDS,
          maxProcesses: config.PROCESS_MAX_PROCESSES,
        },
      },
      remote: {
        reconnectBaseMs: config.REMOTE_RECONNECT_BASE_MS,
        reconnectMaxMs: config.REMOTE_RECONNECT_MAX_MS,
        healthIntervalMs: config.REMOTE_HEALTH_INTERVAL_MS,
      },
    },
  });
  runtimeRef = runtime;
  const sessions = createSessionStore({
    idleTimeoutMs: config.SESSION_IDLE_TIMEOUT_MS,
    events,
    logger,
    teamId: config.SATELLITE_TEAM_ID ?? null,
    ...(options.now ? { now: options.now } : {}),
  });
  const clients = createSessionlessClients({
    idleTimeoutMs: config.SESSION_IDLE_TIMEOUT_MS,
    maxClients: config.SESSIONLESS_CLIENTS_MAX,
    maxClientsPerTeam:
      satelliteTypeOf(config) === 'team' ? config.SESSIONLESS_CLIENTS_MAX : config.SESSIONLESS_CLIENTS_PER_TEAM_MAX,
    events,
    logger,
    teamId: config.SATELLITE_TEAM_ID ?? null,
    ...(options.now ? { now: options.now } : {}),
  });
  const settings =
    options.settings ??
    createSettingsCache({ initial: { enable_swagger_docs: config.SATELLITE_ENABLE_DOCS }, source: 'defaults' });
  const discovery =
    options.discovery ??
    createDiscoveryEngine({
      // Read on every call: a configuration the backend sends applies to the next discovery call.
      models: () => resolveDiscoveryModels(settings.settings().discovery, config),
      onModelError: (endpoint, error) =>
        logger.warn(
          { endpoint, reason: error instanceof Error ? error.message : String(error) },
          'discovery model endpoint failed; the word ranking answers',
        ),
    });
  const handlers = createToolHandlers({
    runtime,
    discovery,
    validator: createArgumentValidator(),
    events,
  });

  // pino's Logger is a FastifyBaseLogger; the cast keeps the instance typed with Fastify's defaults.
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    ...fastifyTimeouts(config),
    // One log line per MCP message would drown the events; failures are logged where they happen.
    // The request id under the name every other log line gives it (Fastify's default is reqId).
    logController: new LogController({ requestIdLogLabel: 'request_id', disableRequestLogging: true }),
  });
  let authenticate: ReturnType<typeof createBearerAuthenticator> | undefined;
  if (oauth) {
    // satelliteConfig guarantees these in oauth mode.
    const resource = new URL(config.SATELLITE_PUBLIC_URL as string);
    const authorizationServer = new URL(config.SATELLITE_AUTH_SERVER_URL as string);
    if (!options.introspectionCredential) {
      throw new Error('SATELLITE_AUTH_MODE=oauth needs the backend link: introspection uses the satellite API key');
    }
    const { metadataUrl } = registerProtectedResourceMetadata(app, { resource, authorizationServer });
    authenticate = createBearerAuthenticator({
      verifier: createIntrospectionVerifier({
        introspectionUrl: new URL(
          config.SATELLITE_INTROSPECTION_URL ?? new URL(introspectionPath, authorizationServer).href,
        ),
        credential: options.introspectionCredential,
        resource,
        teamId: satelliteTypeOf(config) === 'team' ? (config.SATELLITE_TEAM_ID ?? null) : null,
        cacheTtlMs: config.SATELLITE_INTROSPECTION_CACHE_TTL_MS,
        ...(options.now ? { now: options.now } : {}),
        ...(options.fetch ? { fetch: options.fetch } : {}),
      }),
      resourceMetadataUrl: metadataUrl,
      requiredScopes: [mcpScope],
      ...(options.now ? { now: options.now } : {}),
    });
  }
  const routing = createCallRouting({
    ttlMs: config.MCP_INPUT_ANSWER_TIMEOUT_MS,
    ...(config.SATELLITE_REPLICA_URL ? { replicaUrl: config.SATELLITE_REPLICA_URL } : {}),
    ...(config.SATELLITE_REPLICA_SECRET ? { secret: config.SATELLITE_REPLICA_SECRET } : {}),
  });
  const suspended = createSuspendedCalls({ answerTimeoutMs: config.MCP_INPUT_ANSWER_TIMEOUT_MS, routing });
  const forwarder = createReplicaForwarder({ routing, logger });
  const endpoint = createMcpEndpoint({
    sessions,
    clients,
    handlers,
    suspended,
    instanceTag: routing.instanceTag,
    keepAliveMs: config.MCP_SSE_KEEPALIVE_MS,
    onerror: (error) => logger.debug({ err: error }, '/mcp request refused'),
  });
  registerMcpRoutes(app, {
    endpoint,
    forwarder,
    keepAliveMs: config.MCP_SSE_KEEPALIVE_MS,
    maxBodyBytes: config.MCP_MAX_REQUEST_BYTES,
    originPolicy: { allowedHosts: config.SATELLITE_ALLOWED_HOSTS, allowedOrigins: config.SATELLITE_ALLOWED_ORIGINS },
    ...(authenticate ? { authenticate } : {}),
  });
  const startedAt = Date.now();
  // Served from the settings cache, so it answers without the backend: which settings the satellite holds,
  // where from, and their hash.
  app.get('/', async () => {
    const servers = runtime.snapshot();
    const held = settings.current();
    return {
      status: 'ok',
      service: 'service-satellite',
      mode: options.link ? 'backend' : 'standalone',
      type: satelliteTypeOf(config),
      auth: config.SATELLITE_AUTH_MODE,
      ...(options.link ? { backend: options.link.status() } : {}),
      uptime_seconds: Math.round((Date.now() - startedAt) / 1000),
      servers: describeServers(servers, !oauth),
      sessions: sessions.size(),
      sessionless_clients: clients.size(),
      sessionless_clients_not_followed: clients.notFollowed(),
      settings: { ...shownSettings(held.settings), source: held.source, hash: held.hash, updated_at: held.updated_at },
    };
  });
  // Registered always and checked per request, so a change of global.enable_swagger_docs applies at
  // once; while it is off the routes answer exactly as an unknown path does.
  const documentation = async (_request: FastifyRequest, reply: FastifyReply) =>
    settings.settings().enable_swagger_docs ? satelliteOpenApi : reply.callNotFound();
  app.get('/documentation', documentation);
  app.get('/documentation/json', documentation);

  let sweeper: NodeJS.Timeout | undefined;
  return {
    app,
    runtime,
    sessions,
    clients,
    suspended,
    settings,
    discovery,
    start() {
      sweeper = setInterval(() => {
        void sessions.sweep();
        clients.sweep();
      }, config.SESSION_SWEEP_INTERVAL_MS).unref();
      return runtime.start();
    },
    async close() {
      if (sweeper) clearInterval(sweeper);
      await sessions.closeAll();
      clients.closeAll();
      suspended.closeAll();
      await endpoint.close();
      forwarder.close();
      await runtime.stop();
      discovery.close();
      await app.close();
    },
  };
}
