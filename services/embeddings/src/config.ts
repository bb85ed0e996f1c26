import { logEnv, port, positiveInt } from '@orbital/config';
import { z } from 'zod';

/** The local embeddings process's environment. */
export const embeddingsEnv = logEnv.extend({
  // 3002 beside the gateway's 3000 and the satellite's 3001.
  PORT: port.default(3002),
  // Loopback by default: the model is for this machine's satellite, benchmark and tests.
  HOST: z.string().default('127.0.0.1'),
  // When set, every request must carry `Authorization: Bearer <key>`, as an OpenAI-compatible client sends.
  EMBEDDINGS_API_KEY: z.string().min(1).optional(),
  // One request embeds at most this many texts (the model takes about 20 to 70 ms per text).
  EMBEDDINGS_MAX_INPUTS: positiveInt.max(4096).default(2048),
  // Longer texts are refused rather than cut: the caller decides what to embed.
  EMBEDDINGS_MAX_INPUT_CHARS: positiveInt.default(8192),
});

export type EmbeddingsEnv = z.infer<typeof embeddingsEnv>;
