import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './freePort.ts';
import { waitForLine } from './waitForLine.ts';

export type PrivateNatsServer = {
  url: string;
  port: number;
  /** Everything the server wrote so far (its log), for a failure's message. */
  output(): string;
  stop(): Promise<void>;
};

/** Where Debian's package puts it; NATS_SERVER_BIN names another. */
const binary = process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server';

/**
 * A nats-server of the test's own, with JetStream in a temporary folder and the given configuration
 * (authorization, accounts) after the listen and JetStream lines: for tests that need a server set up
 * differently from the machine's shared one, such as one that refuses anonymous clients.
 */
export async function startNatsServer(config: string): Promise<PrivateNatsServer> {
  const dir = mkdtempSync(join(tmpdir(), 'orbital-nats-'));
  const port = await freePort();
  const file = join(dir, 'nats.conf');
  writeFileSync(
    file,
    [
      `listen: "127.0.0.1:${port}"`,
      `jetstream { store_dir: ${JSON.stringify(join(dir, 'store'))}, max_memory_store: 64MB, max_file_store: 512MB }`,
      config,
    ].join('\n'),
    { mode: 0o600 },
  );
  const child: ChildProcess = spawn(binary, ['-c', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = once(child, 'exit');
  await waitForLine(child, /Server is ready/, 'nats-server');
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
