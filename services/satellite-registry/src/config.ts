import { logEnv, natsEnv, positiveInt, postgresEnv } from '@orbital/config';
import { z } from 'zod';

export const configSchema = z.object({
  ...postgresEnv.shape,
  ...natsEnv.shape,
  ...logEnv.shape,
  // Signs registration tokens (HS256). No default on purpose (DESIGN.md improvement 3): without it the
  // service refuses to start rather than sign with a guessable key.
  REGISTRATION_TOKEN_SECRET: z.string().min(32),
  // How long a polled command stays leased to the satellite before it returns to the queue.
  COMMAND_LEASE_MS: positiveInt.default(60000),
  // The heartbeat interval satellites are told to keep (spec: 30 seconds).
  HEARTBEAT_INTERVAL_MS: positiveInt.default(30000),
});

export type Config = z.infer<typeof configSchema>;
