import { fileURLToPath } from 'node:url';
import { postgresConnectionFromEnv } from '@orbital/db';
import { runService, startDatabaseOwner } from '@orbital/service';
import { buildGateway } from './app.ts';
import { gatewayConfigSchema } from './config.ts';
import { createSatelliteAuthenticator } from './satellites/createSatelliteAuthenticator.ts';

const migrationsDir = fileURLToPath(new URL('../migrations', import.meta.url));

await runService({
  name: 'gateway-api',
  configSchema: gatewayConfigSchema,
  async start({ config, logger, bus }) {
    // gateway-api owns the identity schema: authentication happens at the edge.
    const identityDb = await startDatabaseOwner({
      bus,
      owner: 'identity',
      connection: postgresConnectionFromEnv(config),
      migrationsDir,
      logger,
    });
    const satellites = await createSatelliteAuthenticator({ bus, logger });
    let draining = false;
    const app = await buildGateway({
      bus,
      logger,
      bodyLimitBytes: config.BODY_LIMIT_BYTES,
      trustProxy: config.TRUST_PROXY,
      satellites,
      readiness: { isReady: () => !draining && !bus.connection.isClosed() },
    });
    await app.listen({ port: config.PORT, host: config.HOST });
    return {
      beforeDrain: [
        {
          name: 'stop http',
          run: async () => {
            draining = true;
            await app.close();
            satellites.stop();
          },
        },
      ],
      afterDrain: [{ name: 'close identity pool', run: () => identityDb.pool.end() }],
    };
  },
});
