import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** The suite's command line, from the pinned @modelcontextprotocol/conformance package. */
function conformanceCli(): string {
  const packageJson = createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/package.json');
  return join(dirname(packageJson), 'dist', 'index.js');
}

export type ConformanceRun = {
  /** 0 when every failure is listed in the expected-failures file and no listed entry passes. */
  exitCode: number;
  output: string;
  /** Checks that passed and failed over the whole run, from the suite's summary. */
  passed: number;
  failed: number;
};

/**
 * Runs the MCP conformance suite (`server` scenarios against an MCP endpoint, `authorization`
 * scenarios against an authorization server) for exactly what one protocol revision requires,
 * judged against a checked-in expected-failures file in the suite's own format. The suite runs
 * in a fresh directory, where it writes its results.
 */
export function runConformanceSuite(options: {
  command: 'server' | 'authorization';
  url: string;
  requirements: string;
  expectedFailures: string;
  timeoutMs?: number;
}): Promise<ConformanceRun> {
  const cwd = mkdtempSync(join(tmpdir(), 'conformance-'));
  const args = [
    conformanceCli(),
    options.command,
    '--url',
    options.url,
    '--requirements',
    options.requirements,
    '--expected-failures',
    options.expectedFailures,
  ];
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      args,
      { cwd, timeout: options.timeoutMs ?? 300000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const output = `${stdout}\n${stderr}`;
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        if (code === null) {
          reject(new Error(`the conformance suite did not finish: ${error?.message}\n${output}`));
          return;
        }
        const total = /Total: (\d+) passed, (\d+) failed/.exec(output);
        resolve({ exitCode: code, output, passed: Number(total?.[1] ?? 0), failed: Number(total?.[2] ?? 0) });
      },
    );
  });
}

/**
 * The entries of an expected-failures file with the reason written after each (`- entry  # why`).
 * An entry without a reason is an error: every exception must say why it cannot apply.
 */
export function expectedFailureReasons(file: string): Map<string, string> {
  const reasons = new Map<string, string>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const entry = /^\s*-\s*([^\s#]+)\s*(?:#\s*(.*))?$/.exec(line);
    if (!entry) continue;
    const reason = entry[2]?.trim();
    if (!reason) throw new Error(`${file}: "${entry[1]}" has no reason; write it after the entry as "# why"`);
    reasons.set(entry[1] as string, reason);
  }
  return reasons;
}
