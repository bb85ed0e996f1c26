import { fileURLToPath } from 'node:url';
import { logEnv, natsEnv, positiveInt, postgresEnv } from '@orbital/config';
import { z } from 'zod';

export const settingsConfigSchema = z.object({
  ...postgresEnv.shape,
  ...natsEnv.shape,
  ...logEnv.shape,
  // The spec keeps the database selection record in persistent_data/ of the backend service directory.
  PERSISTENT_DATA_DIR: z.string().default(fileURLToPath(new URL('../persistent_data', import.meta.url))),
  // How long setup waits for each other service to confirm its migrations before answering
  // restart_required: true.
  DB_SETUP_SERVICE_TIMEOUT_MS: positiveInt.default(15000),
});

export type SettingsConfig = z.infer<typeof settingsConfigSchema>;
