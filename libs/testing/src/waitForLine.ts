import type { ChildProcess } from 'node:child_process';

/**
 * Resolves once a child process has written a line matching `pattern` (its "ready" line) on stdout or
 * stderr; rejects, with the end of what it wrote, when it exits first or stays silent past `timeoutMs`.
 */
export function waitForLine(child: ChildProcess, pattern: RegExp, what: string, timeoutMs = 15000): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(
      () => reject(new Error(`${what} did not start in time:\n${output.slice(-2000)}`)),
      timeoutMs,
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (pattern.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited (${code}):\n${output.slice(-2000)}`));
    });
  });
}
