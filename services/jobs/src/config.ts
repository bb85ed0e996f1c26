import { logEnv, natsEnv, redisEnv } from '@orbital/config';
import { z } from 'zod';

export const configSchema = z.object({
  ...natsEnv.shape,
  ...redisEnv.shape,
  ...logEnv.shape,
});

export type Config = z.infer<typeof configSchema>;
