import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './freePort.ts';
import { waitForLine } from './waitForLine.ts';

export type PrivateRedisServer = {
  url: string;
  port: number;
  /** Stops the server, as a crash or a failover does: clients lose their connection. */
  stop(): Promise<void>;
  /** Starts it again on the same port with nothing in it, as Redis without persistence comes back. */
  start(): Promise<void>;
  /** Stops it for good and removes its folder. */
  close(): Promise<void>;
};

/** Where Debian's package puts it; REDIS_SERVER_BIN names another. */
const binary = process.env.REDIS_SERVER_BIN ?? '/usr/bin/redis-server';

/**
 * A redis-server of the test's own on a free port, without persistence: for tests that take Redis away
 * and give it back empty (a restart, a failover, an eviction of everything), which the machine's shared
 * server must never do to the others.
 */
export async function startRedisServer(): Promise<PrivateRedisServer> {
  const dir = mkdtempSync(join(tmpdir(), 'orbital-redis-'));
  const port = await freePort();
  let child: ChildProcess | null = null;

  const start = async () => {
    const started = spawn(
      binary,
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child = started;
    await waitForLine(started, /Ready to accept connections/, 'redis-server');
  };

  const stop = async () => {
    const running = child;
    child = null;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = once(running, 'exit');
    running.kill('SIGKILL');
    await exited;
  };

  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop,
    start,
    async close() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
