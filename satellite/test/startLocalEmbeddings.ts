import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import { freePort } from '@orbital/testing';

const entry = fileURLToPath(new URL('../../services/embeddings/src/main.ts', import.meta.url));

/**
 * The project's local embeddings process (services/embeddings), started as its own process on a free
 * port: the real endpoint discovery's tests talk to. Resolves once it listens; `stop` ends it.
 */
export async function startLocalEmbeddings(env: Record<string, string> = {}) {
  const port = await freePort();
  const child = spawn(process.execPath, [entry], {
    env: { PATH: process.env.PATH ?? '', PORT: String(port), LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('"msg":"ready"')) resolve();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once('exit', (code) => reject(new Error(`the embeddings process exited (${code}): ${output}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/v1`,
    model: 'universal-sentence-encoder-lite',
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
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
