import { fileURLToPath } from 'node:url';
import { commaList, databaseServiceConfig, positiveInt } from '@orbital/config';
import { z } from 'zod';

export const settingsConfigSchema = databaseServiceConfig({
  // Key material for AES-256-GCM of encrypted settings. No default and no fallback: without it the
  // service refuses to start rather than store secrets under a guessable key.
  SERVICE_ENCRYPTION_SECRET: z.string().min(32, 'must be at least 32 characters'),
  // Comma-separated paths of plugin modules declaring globalSettingsExtension, in precedence order.
  SETTINGS_PLUGIN_MODULES: commaList,
  // Safety net behind the NATS broadcast: a full cache reload at this interval (and on reconnect).
  SETTINGS_CACHE_RESYNC_MS: positiveInt.default(300000),
  // Where setup writes the database selection record (db.selection.json): persistent_data/ of this
  // service's directory unless set.
  PERSISTENT_DATA_DIR: z.string().default(fileURLToPath(new URL('../persistent_data', import.meta.url))),
  // How long setup waits for each other service to confirm its migrations before answering
  // restart_required: true.
  DB_SETUP_SERVICE_TIMEOUT_MS: positiveInt.default(15000),
  // manual: setup waits for POST /api/db/setup (the setup wizard). auto: a replica sets the database up
  // itself as soon as it answers, so a deployment rolls out without a manual call (deploy/ uses it).
  DATABASE_SETUP: z.enum(['manual', 'auto']).default('manual'),
});

export type SettingsConfig = z.infer<typeof settingsConfigSchema>;
