import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** The suite's command line, from the pinned @modelcontextprotocol/conformance package. */
function conformanceCli(): string {
  const packageJson = createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/package.json');
  return join(dirname(packageJson), 'dist', 'index.js');
}

export type ConformanceCheck = {
  id: string;
  name: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'SKIPPED' | 'INFO';
  errorMessage?: string;
};

export type ConformanceRun = {
  /** 0 when every failure is listed in the expected-failures file and no listed entry passes. */
  exitCode: number;
  output: string;
  /** Checks that passed and failed over the whole run, from the suite's summary. */
  passed: number;
  failed: number;
  /** Every scenario the suite ran with its checks as the suite recorded them (warnings included). */
  scenarios: Array<{ scenario: string; checks: ConformanceCheck[] }>;
};

/** `<kind>-<scenario>-<ISO time with - for : and .>`: the folder the suite writes a scenario's checks to. */
const resultFolder = /^(?:authorization-server-|server-)?(.+)-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/;

function readScenarios(outputDir: string): ConformanceRun['scenarios'] {
  const scenarios: ConformanceRun['scenarios'] = [];
  for (const folder of readdirSync(outputDir)) {
    const scenario = resultFolder.exec(folder)?.[1];
    if (!scenario) continue;
    const checks = JSON.parse(readFileSync(join(outputDir, folder, 'checks.json'), 'utf8')) as ConformanceCheck[];
    scenarios.push({ scenario, checks });
  }
  return scenarios;
}

/**
 * Runs the MCP conformance suite (`server` scenarios against an MCP endpoint, `authorization`
 * scenarios against an authorization server) and returns its verdict and every scenario's checks. The
 * suite runs in a fresh directory, where it writes its results.
 *
 * - `server`: exactly what one protocol revision requires (`requirements`), judged against a checked-in
 *   expected-failures file in the suite's own format.
 * - `authorization`: the scenarios of a revision (`specVersion`; the suite has no requirement sets or
 *   baselines for them), with `args` naming the client (`--client-id`, `--port`, `--resource`). The
 *   suite prints the authorization URL a person would open; `onLine` sees every line as it is printed,
 *   so a test can play that person's browser.
 */
export function runConformanceSuite(
  options: {
    url: string;
    args?: readonly string[];
    onLine?: (line: string) => void;
    timeoutMs?: number;
  } & (
    | { command: 'server'; requirements: string; expectedFailures: string }
    | { command: 'authorization'; specVersion: string }
  ),
): Promise<ConformanceRun> {
  const cwd = mkdtempSync(join(tmpdir(), 'conformance-'));
  const outputDir = join(cwd, 'results');
  const selection =
    options.command === 'server'
      ? ['--requirements', options.requirements, '--expected-failures', options.expectedFailures]
      : ['--spec-version', options.specVersion];
  const args = [
    conformanceCli(),
    options.command,
    '--url',
    options.url,
    ...selection,
    ...(options.args ?? []),
    '--output-dir',
    outputDir,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let partial = '';
    const take = (chunk: Buffer) => {
      const text = chunk.toString();
      output += text;
      const lines = (partial + text).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) options.onLine?.(line);
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 300000);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (partial) options.onLine?.(partial);
      if (code === null) {
        reject(new Error(`the conformance suite did not finish\n${output}`));
        return;
      }
      const total = /Total: (\d+) passed, (\d+) failed/.exec(output);
      resolve({
        exitCode: code,
        output,
        passed: Number(total?.[1] ?? 0),
        failed: Number(total?.[2] ?? 0),
        scenarios: readScenarios(outputDir),
      });
    });
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
