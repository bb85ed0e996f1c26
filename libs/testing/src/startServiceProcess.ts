import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { identityEnvForEntry } from './identityKeys.ts';

export type ChildService = {
  process: ChildProcess;
  /** Every line the process wrote so far (stdout and stderr), for assertions on logs. */
  output(): string;
  /** SIGTERM, then SIGKILL after the grace period; resolves with the exit code. */
  stop(graceMs?: number): Promise<number | null>;
  kill(): Promise<void>;
};

const repoRoot = resolve(import.meta.dirname, '../../..');

/**
 * Starts a real service process (`node <entry>`) with the given environment and waits until it logs
 * `ready`. Uses the same Node binary as the test runner, the project's pinned Node 24.
 */
export async function startServiceProcess(
  entry: string,
  env: Record<string, string>,
  options: { readyTimeoutMs?: number; readyMessage?: string } = {},
): Promise<ChildService> {
  const child = spawn(process.execPath, [resolve(repoRoot, entry)], {
    cwd: repoRoot,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      LOG_LEVEL: 'info',
      ...identityEnvForEntry(entry, env),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const readyMessage = options.readyMessage ?? '"msg":"ready"';
  await new Promise<void>((resolvePromise, reject) => {
    // A bound for a process that will never be ready, not a speed check: four services starting at
    // once on a loaded two-core machine took over 20 s to print their first line.
    const timer = setTimeout(() => {
      cleanup();
      child.kill('SIGKILL');
      reject(new Error(`${entry} did not become ready in time. Output:\n${output}`));
    }, options.readyTimeoutMs ?? 60_000);
    const onData = () => {
      if (output.includes(readyMessage)) {
        cleanup();
        resolvePromise();
      }
    };
    const onExit = (code: number | null) => {
      cleanup();
      reject(new Error(`${entry} exited with ${code} before it was ready. Output:\n${output}`));
    };
    const cleanup = () => {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.off('exit', onExit);
    };
    child.stdout?.on('data', onData);
    child.once('exit', onExit);
  });
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  return {
    process: child,
    output: () => output,
    async stop(graceMs = 10000) {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGKILL');
      await exited;
    },
  };
}
