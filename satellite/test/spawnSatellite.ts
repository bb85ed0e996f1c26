import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startServiceProcess } from '@orbital/testing';
import { freePort } from './helpers.ts';

/** The satellite's entry point, run as its own process as an operator runs it. */
const satelliteMainFile = fileURLToPath(new URL('../src/main.ts', import.meta.url));

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

/** Runs main.ts with exactly `env` (and PATH) until it exits, for the start-ups it must refuse. */
export async function runSatelliteToExit(
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [satelliteMainFile], {
    env: { PATH: process.env.PATH ?? '', PORT: String(await freePort()), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { code, output };
}
