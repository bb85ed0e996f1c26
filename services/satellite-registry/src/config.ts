import { logEnv, natsEnv, postgresEnv } from '@orbital/config';
import { z } from 'zod';

export const configSchema = z.object({
  ...postgresEnv.shape,
  ...natsEnv.shape,
  ...logEnv.shape,
});

export type Config = z.infer<typeof configSchema>;
