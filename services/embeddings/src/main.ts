import { loadConfigOrExit } from '@orbital/config';
import { createLogger } from '@orbital/logger';
import { createEmbeddingsApp } from './app.ts';
import { embeddingsEnv } from './config.ts';
import { createUseLiteEmbedder } from './createUseLiteEmbedder.ts';

const config = loadConfigOrExit(embeddingsEnv, process.env);
const logger = createLogger({ name: 'embeddings', level: config.LOG_LEVEL });

const loading = performance.now();
const embedder = await createUseLiteEmbedder();
logger.info({ model: embedder.model, load_ms: Math.round(performance.now() - loading) }, 'model loaded');
const app = createEmbeddingsApp({ config, embedder, logger });

let stopping = false;
const stop = (signal: string) => {
  if (stopping) process.exit(1);
  stopping = true;
  logger.info({ signal }, 'shutting down');
  app.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.on('SIGTERM', () => stop('SIGTERM'));
process.on('SIGINT', () => stop('SIGINT'));

try {
  await app.listen({ port: config.PORT, host: config.HOST });
  logger.info({ port: config.PORT, host: config.HOST, model: embedder.model }, 'ready');
} catch (error) {
  logger.fatal({ err: error }, 'start-up failed');
  process.exit(1);
}
