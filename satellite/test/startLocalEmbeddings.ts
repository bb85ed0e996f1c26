import { createServer, type Server } from 'node:http';
import { freePort, startServiceProcess } from '@orbital/testing';

/**
 * The project's local embeddings process (services/embeddings), started as its own process on a free
 * port: the real endpoint discovery's tests talk to. Resolves once it listens; `stop` ends it.
 */
export async function startLocalEmbeddings(env: Record<string, string> = {}) {
  const port = await freePort();
  const service = await startServiceProcess('services/embeddings/src/main.ts', { PORT: String(port), ...env });
  return {
    url: `http://127.0.0.1:${port}/v1`,
    model: 'universal-sentence-encoder-lite',
    async stop() {
      await service.stop();
    },
  };
}

/** An HTTP server that takes requests and never answers: the slowest endpoint there is. */
export async function startSilentEndpoint(): Promise<{ url: string; requests: () => number; stop(): Promise<void> }> {
  let count = 0;
  const server: Server = createServer(() => {
    count++;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}/v1`,
    requests: () => count,
    async stop() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
