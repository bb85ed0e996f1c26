import { loadConfigOrExit } from '@orbital/config';
import type { ServerConfiguration } from '@orbital/contracts';
import { createLogger } from '@orbital/logger';
import { createReadiness, startOpsServer } from '@orbital/service';
import { createSatelliteApp } from './app.ts';
import { createBackendLink } from './backend/createBackendLink.ts';
import { satelliteConfig } from './config.ts';
import { createLoggingEventSink } from './events/createLoggingEventSink.ts';
import { loadServerConfigurationFile } from './loadServerConfigurationFile.ts';
import { createSatelliteMetrics } from './metrics/createSatelliteMetrics.ts';
import { createSettingsCache } from './settings/createSettingsCache.ts';

const config = loadConfigOrExit(satelliteConfig, process.env);
const logger = createLogger({ name: 'satellite', level: config.LOG_LEVEL });

let servers: ServerConfiguration[] = [];
// The global settings' defaults, docs switchable by SATELLITE_ENABLE_DOCS; replaced by the file's settings in
// standalone mode, and by the backend's with each configuration in backend mode.
const settings = createSettingsCache({
  initial: { enable_swagger_docs: config.SATELLITE_ENABLE_DOCS },
  source: 'defaults',
});
// Backend mode: the servers come from the backend's configuration (fetched once linked).
const link = config.BACKEND_URL
  ? createBackendLink({ config: { ...config, BACKEND_URL: config.BACKEND_URL }, logger, settings })
  : undefined;
if (link && config.SATELLITE_CONFIG_FILE) {
  logger.warn('BACKEND_URL is set: SATELLITE_CONFIG_FILE is ignored, the backend distributes the configuration');
} else if (config.SATELLITE_CONFIG_FILE) {
  try {
    const file = loadServerConfigurationFile(config.SATELLITE_CONFIG_FILE);
    servers = file.servers;
    if (file.settings) settings.update(file.settings, 'file');
  } catch (error) {
    logger.fatal({ err: error }, 'standalone configuration refused');
    process.exit(1);
  }
} else if (!link) {
  logger.warn(
    'SATELLITE_CONFIG_FILE is not set: starting with no MCP servers (standalone mode needs a configuration file)',
  );
}

const satellite = createSatelliteApp({
  config,
  servers,
  events: link ? link.events : createLoggingEventSink(logger),
  logger,
  settings,
  ...(link ? { link, introspectionCredential: link.introspectionCredential, upstreamTokens: link.upstreamTokens } : {}),
});

let stopping: Promise<void> | undefined;
const stop = (signal: string) => {
  if (stopping) {
    logger.warn({ signal }, 'second signal; exiting now');
    process.exit(1);
  }
  logger.info({ signal }, 'shutting down');
  const deadline = setTimeout(
    () => {
      logger.error('shutdown did not finish in time; exiting');
      process.exit(1);
    },
    config.EVENT_FLUSH_TIMEOUT_MS + config.PROCESS_KILL_GRACE_MS + 10000,
  );
  deadline.unref();
  // The event queue stops accepting and flushes (at most EVENT_FLUSH_TIMEOUT_MS) first.
  const flushed = link ? link.stop() : Promise.resolve();
  stopping = flushed
    .then(() => satellite.close())
    .then(
      () => {
        logger.info('stopped');
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
};
process.on('SIGTERM', () => stop('SIGTERM'));
process.on('SIGINT', () => stop('SIGINT'));

let ready = false;
const metrics = createSatelliteMetrics({
  servers: () => satellite.runtime.snapshot(),
  sessions: () => satellite.sessions.size(),
  sessionlessClients: () => ({
    followed: satellite.clients.size(),
    notFollowed: satellite.clients.notFollowed(),
  }),
  discovery: () => satellite.discovery.stats(),
  ...(link ? { events: () => link.events.stats() } : {}),
});

try {
  // Listen first: the health check and /mcp answer at once, saying which servers are still starting,
  // and no server (slow, silent or failing) can hold up the satellite or end it.
  await satellite.app.listen({ port: config.PORT, host: config.HOST });
  if (config.METRICS_PORT !== undefined) {
    const readiness = createReadiness();
    readiness.add('process', () => ready && !stopping);
    const ops = await startOpsServer({
      port: config.METRICS_PORT,
      host: config.HOST,
      registry: metrics.registry,
      readiness,
    });
    process.once('exit', () => void ops.close());
  }
  ready = true;
  logger.info(
    {
      port: config.PORT,
      host: config.HOST,
      servers: servers.length,
      mode: link ? 'backend' : 'standalone',
      auth: config.SATELLITE_AUTH_MODE,
    },
    'ready',
  );
  void satellite.start().then(() => {
    const snapshot = satellite.runtime.snapshot();
    logger.info(
      { servers: snapshot.length, online: snapshot.filter((server) => server.status === 'online').length },
      'MCP servers started (each online, or retrying as its status says)',
    );
  });
  if (link) {
    link.start(satellite.runtime).catch((error: unknown) => {
      if (stopping) return;
      // Not registered and cannot register (no token, or the token was refused): nothing to serve.
      logger.fatal({ err: error }, 'cannot link to the backend');
      void link.stop().finally(() => satellite.close().finally(() => process.exit(1)));
    });
  }
} catch (error) {
  logger.fatal({ err: error }, 'start-up failed');
  await satellite.close().catch(() => {});
  process.exit(1);
}
