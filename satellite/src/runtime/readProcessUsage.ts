import { readFileSync } from 'node:fs';

export type ProcessUsage = { cpu_seconds: number; memory_bytes: number };

// Linux reports CPU in clock ticks (USER_HZ, 100 on every mainstream kernel) and memory in pages.
const ticksPerSecond = 100;
const pageSize = 4096;

/**
 * CPU time and resident memory of one process from /proc, without spawning `ps`. Undefined where
 * /proc is missing (not Linux) or the process is gone; the heartbeat then reports the usage unknown.
 */
export function readProcessUsage(pid: number): ProcessUsage | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count fields after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const utime = Number(fields[11]);
    const stime = Number(fields[12]);
    const statm = readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ');
    const residentPages = Number(statm[1]);
    if (!Number.isFinite(utime) || !Number.isFinite(residentPages)) return undefined;
    return { cpu_seconds: (utime + stime) / ticksPerSecond, memory_bytes: residentPages * pageSize };
  } catch {
    return undefined;
  }
}
