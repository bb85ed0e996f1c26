import { databaseServiceConfig, positiveInt } from '@orbital/config';
import { z } from 'zod';

export const configSchema = databaseServiceConfig({
  // Signs registration tokens (HS256). No default on purpose, no fallback secret: without it the
  // service refuses to start rather than sign with a guessable key.
  REGISTRATION_TOKEN_SECRET: z.string().min(32),
  // How long a polled command stays leased to the satellite before it returns to the queue.
  COMMAND_LEASE_MS: positiveInt.default(60000),
  // How long a command waits for delivery when its creator names no expiry. Commands for a satellite
  // that never starts would otherwise pile up; one that starts later fetches its whole configuration
  // anyway, so an hour-old command has nothing left to say.
  COMMAND_DEFAULT_EXPIRY_MS: positiveInt.min(1000).default(3_600_000),
  // The heartbeat interval satellites are told to keep: 30 seconds by default.
  HEARTBEAT_INTERVAL_MS: positiveInt.default(30000),
  // How often the registry looks for satellites that went offline, to tell the global admins by mail.
  OFFLINE_CHECK_MS: positiveInt.min(100).default(15000),
});

export type Config = z.infer<typeof configSchema>;
