import { readdirSync, readFileSync } from 'node:fs';

/** Small helpers every benchmark uses to report figures the same way. */
export function percentile(sortedMs: number[], p: number): number {
  if (sortedMs.length === 0) return Number.NaN;
  const index = Math.min(sortedMs.length - 1, Math.max(0, Math.ceil((p / 100) * sortedMs.length) - 1));
  return sortedMs[index] as number;
}

export type LatencySummary = { count: number; perSecond: number; p50: number; p99: number };

/** Runs `call` `count` times with `concurrency` in flight; latency per call and overall throughput. */
export async function measure(
  call: () => Promise<unknown>,
  options: { count: number; concurrency: number },
): Promise<LatencySummary> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: options.concurrency }, async () => {
      while (next < options.count) {
        next += 1;
        const t0 = performance.now();
        await call();
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const elapsed = performance.now() - started;
  latencies.sort((a, b) => a - b);
  return {
    count: latencies.length,
    perSecond: Math.round((latencies.length / elapsed) * 1000),
    p50: Number(percentile(latencies, 50).toFixed(3)),
    p99: Number(percentile(latencies, 99).toFixed(3)),
  };
}

export function printTable(title: string, rows: Array<Record<string, string | number>>): void {
  console.log(`\n${title}`);
  console.table(rows);
}

/**
 * CPU seconds (user + system) a process has used so far, read from /proc (Linux); this process's own
 * when no pid is given. Taken before and after a phase, the difference is what the phase cost, which
 * says more than wall-clock time on a machine whose other users take turns on the cores.
 */
export function cpuSeconds(pid?: number): number {
  if (pid === undefined) {
    const usage = process.cpuUsage();
    return (usage.user + usage.system) / 1e6;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start at ") "; utime and stime are the
    // 14th and 15th fields, in clock ticks of 1/100 s on Linux.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

/**
 * CPU seconds used so far by each process whose command name is `name` (`postgres`, `nats-server`), by
 * pid: the shared servers of a path, whose work per request is part of what the path costs.
 */
export function cpuSecondsOfCommand(name: string): Map<number, number> {
  const byPid = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) !== name) continue;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      byPid.set(Number(entry), (Number(fields[11]) + Number(fields[12])) / 100);
    } catch {
      // Gone between the listing and the read.
    }
  }
  return byPid;
}

/**
 * What the processes of two readings of cpuSecondsOfCommand used in between: a process that ended in
 * between is missed (its CPU is gone with it), so the figure is a lower bound.
 */
export function cpuSecondsBetween(before: Map<number, number>, after: Map<number, number>): number {
  let total = 0;
  for (const [pid, seconds] of after) total += seconds - (before.get(pid) ?? 0);
  return total;
}

/**
 * CPU seconds the whole machine has been busy, all cores together (/proc/stat): beside the processes of
 * a path, it says how much of the machine others took while it ran.
 */
export function machineCpuSeconds(): number {
  const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] ?? '';
  // cpu user nice system idle iowait irq softirq steal ...: everything but idle and iowait.
  const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
  return ((user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0)) / 100;
}
