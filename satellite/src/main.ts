import { loadConfigOrExit } from '@orbital/config';
import type { ServerConfiguration } from '@orbital/contracts';
import { createLogger } from '@orbital/logger';
import { createSatelliteApp } from './app.ts';
import { satelliteConfig } from './config.ts';
import { createLoggingEventSink } from './events/createLoggingEventSink.ts';
import { loadServerConfigurationFile } from './loadServerConfigurationFile.ts';

const config = loadConfigOrExit(satelliteConfig, process.env);
const logger = createLogger({ name: 'satellite', level: config.LOG_LEVEL });

let servers: ServerConfiguration[] = [];
if (config.SATELLITE_CONFIG_FILE) {
  try {
    servers = loadServerConfigurationFile(config.SATELLITE_CONFIG_FILE).servers;
  } catch (error) {
    logger.fatal({ err: error }, 'standalone configuration refused');
    process.exit(1);
  }
} else {
  logger.warn(
    'SATELLITE_CONFIG_FILE is not set: starting with no MCP servers (standalone mode needs a configuration file)',
  );
}

const satellite = createSatelliteApp({ config, servers, events: createLoggingEventSink(logger), logger });

let stopping: Promise<void> | undefined;
const stop = (signal: string) => {
  if (stopping) {
    logger.warn({ signal }, 'second signal; exiting now');
    process.exit(1);
  }
  logger.info({ signal }, 'shutting down');
  const deadline = setTimeout(() => {
    logger.error('shutdown did not finish in time; exiting');
    process.exit(1);
  }, config.PROCESS_KILL_GRACE_MS + 10000);
  deadline.unref();
  stopping = satellite.close().then(
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

try {
  await satellite.start();
  await satellite.app.listen({ port: config.PORT, host: config.HOST });
  logger.info(
    { port: config.PORT, host: config.HOST, servers: servers.length, auth: config.SATELLITE_AUTH_MODE },
    'ready',
  );
} catch (error) {
  logger.fatal({ err: error }, 'start-up failed');
  await satellite.close().catch(() => {});
  process.exit(1);
}
