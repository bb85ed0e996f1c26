import type { ChildProcess } from 'node:child_process';
import { startServiceProcess } from '@orbital/testing';
import { freePort } from './helpers.ts';

/**
 * Starts main.ts as its own process (`startServiceProcess`: only PATH and HOME of ours, info logs) on
 * loopback without authentication, which a global satellite must be allowed, and resolves once it logs
 * `readyMessage` (by default "ready": listening). The caller stops the child.
 */
export async function spawnSatellite(
  env: Record<string, string>,
  options: { port?: number; readyMessage?: string } = {},
): Promise<{ child: ChildProcess; port: number; output: () => string }> {
  const port = options.port ?? (await freePort());
  const service = await startServiceProcess(
    'satellite/src/main.ts',
    { PORT: String(port), SATELLITE_ALLOW_UNAUTHENTICATED_GLOBAL: 'true', ...env },
    { readyMessage: `"msg":"${options.readyMessage ?? 'ready'}` },
  );
  return { child: service.process, port, output: service.output };
}

/**
 * Starts main.ts with `env` (and PATH) where it must refuse to start: resolves with what
 * `startServiceProcess` says of a process that exited before it was ready (its exit code and output),
 * or "the satellite started" when it did not refuse.
 */
export async function refusedStartOf(env: Record<string, string>): Promise<string> {
  return startServiceProcess('satellite/src/main.ts', { PORT: String(await freePort()), ...env }).then(
    async (service) => {
      await service.kill();
      return 'the satellite started';
    },
    (error: Error) => error.message,
  );
}
