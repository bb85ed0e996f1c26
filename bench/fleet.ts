import { clientConnectedBatch } from '@orbital/testing';
import { percentile } from './stats.ts';

/**
 * Simulated satellites as the satellite behaves towards gateway-api: a heartbeat every 30 s, a command
 * poll whenever the answer says (`next_poll_ms`), a batch of 5 events every 3 s. Every answer is recorded
 * with when it was asked (ms since the recorder's start), so a report can leave out a first stretch.
 * An error is any answer other than 200, or none within 10 s (the satellite's own timeout).
 */
export type Kind = 'poll' | 'heartbeat' | 'events' | 'user' | 'register' | 'register (told to retry)';
export type SimulatedSatellite = { id: string; key: string };

/** `status` 0: no answer within 10 s, or the connection failed. */
type Sample = { at: number; ms: number; ok: boolean; status: number };

export function createRecorder() {
  const started = performance.now();
  const samples = new Map<Kind, Sample[]>();
  return {
    started,
    record(kind: Kind, t0: number, ok: boolean, status: number) {
      const list = samples.get(kind) ?? [];
      list.push({ at: t0 - started, ms: performance.now() - t0, ok, status });
      samples.set(kind, list);
    },
    /** One row per kind: every request, and the latency of those asked after `afterMs`. */
    rows(afterMs: number, extra: Record<string, string | number>): Array<Record<string, string | number>> {
      return [...samples.entries()].map(([kind, list]) => {
        const all = list.map((s) => s.ms).sort((a, b) => a - b);
        const later = list
          .filter((s) => s.at >= afterMs)
          .map((s) => s.ms)
          .sort((a, b) => a - b);
        return {
          ...extra,
          request: kind,
          count: list.length,
          errors: list.filter((s) => !s.ok).length,
          'errors by status': errorsByStatus(list),
          'p50 ms': round(percentile(all, 50)),
          'p99 ms': round(percentile(all, 99)),
          'max ms': round(all[all.length - 1] ?? Number.NaN),
          [`p99 ms after ${afterMs / 1000} s`]: round(percentile(later, 99)),
          [`max ms after ${afterMs / 1000} s`]: round(later[later.length - 1] ?? Number.NaN),
        };
      });
    },
  };
}
export type Recorder = ReturnType<typeof createRecorder>;

const round = (ms: number) => Number(ms.toFixed(1));

/** "503:12 0:3" (0: no answer), or "-". */
function errorsByStatus(list: Sample[]): string {
  const counts = new Map<number, number>();
  for (const s of list) if (!s.ok) counts.set(s.status, (counts.get(s.status) ?? 0) + 1);
  return [...counts].map(([status, n]) => `${status}:${n}`).join(' ') || '-';
}

const heartbeat = JSON.stringify({
  system: {
    cpu_percent: 10,
    memory: { used_mb: 100, total_mb: 1000 },
    network_status: 'online',
    process_counts: { total: 1, running: 1, failed: 0 },
    uptime_seconds: 100,
  },
  processes: [],
});

/** One request as the satellite makes it, recorded; the parsed answer, or null when it failed. */
export async function timed<T>(
  recorder: Recorder,
  kind: Kind,
  url: string,
  init: RequestInit,
  /** Which kind an answer is recorded as, and whether it counts as answered well (default: 200 is). */
  judge: (response: Response) => { kind: Kind; ok: boolean } = (response) => ({ kind, ok: response.status === 200 }),
): Promise<{ status: number; headers: Headers; body: T } | null> {
  const t0 = performance.now();
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(10_000) });
    const text = await response.text();
    const verdict = judge(response);
    recorder.record(verdict.kind, t0, verdict.ok, response.status);
    if (!verdict.ok && process.env.BENCH_SHOW_ERRORS) console.error(kind, response.status, text.slice(0, 300));
    return { status: response.status, headers: response.headers, body: (text ? JSON.parse(text) : null) as T };
  } catch {
    recorder.record(kind, t0, false, 0);
    return null;
  }
}

/**
 * Runs one satellite until `deadline` (epoch ms). `firstWithinMs`: each loop's first request comes at a
 * random moment within it (30 000 for satellites started at different times; a small value for a fleet
 * that was waiting for a gateway to come back, or that has just registered).
 */
export async function runSatellite(
  base: string,
  satellite: SimulatedSatellite,
  recorder: Recorder,
  options: { deadline: number; firstWithinMs: number },
): Promise<void> {
  const { deadline } = options;
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, Math.min(ms, deadline - Date.now()))));
  const headers = { authorization: `Bearer ${satellite.key}`, 'content-type': 'application/json' };
  const url = (path: string) => `${base}/api/satellites/${satellite.id}/${path}`;
  const beats = async () => {
    await sleep(Math.random() * options.firstWithinMs);
    while (Date.now() < deadline) {
      await timed(recorder, 'heartbeat', url('heartbeat'), { method: 'POST', headers, body: heartbeat });
      await sleep(30_000);
    }
  };
  const polls = async () => {
    await sleep(Math.random() * options.firstWithinMs);
    while (Date.now() < deadline) {
      const answer = await timed<{ data?: { polling?: { next_poll_ms?: number } } }>(
        recorder,
        'poll',
        url('commands?wait_ms=0'),
        { headers },
      );
      await sleep(answer?.body?.data?.polling?.next_poll_ms ?? 30_000);
    }
  };
  const events = async () => {
    await sleep(Math.random() * Math.min(3_000, options.firstWithinMs));
    while (Date.now() < deadline) {
      await timed(recorder, 'events', url('events'), { method: 'POST', headers, body: clientConnectedBatch(5) });
      await sleep(3_000);
    }
  };
  await Promise.all([beats(), polls(), events()]);
}

/**
 * Registers with its registration token, and after a 503 with `Retry-After` (the registry's Argon2 queue
 * is full) again once that time has passed: the tightest retry a well-behaved client makes (the
 * satellite itself backs off exponentially, 1 s doubling up to 60 s, which spreads a burst further). A 503 so answered is
 * back-pressure, recorded apart; anything else but 201 is an error. The satellite, or null.
 */
export async function register(
  base: string,
  authorization: string,
  name: string,
  recorder: Recorder,
  deadline: number,
): Promise<SimulatedSatellite | null> {
  while (Date.now() < deadline) {
    const answer = await timed<{ data: { satellite_id: string; api_key: string } }>(
      recorder,
      'register',
      `${base}/api/satellites/register`,
      {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/json' },
        body: JSON.stringify({ name }),
      },
      (response) =>
        response.status === 503 && response.headers.has('retry-after')
          ? { kind: 'register (told to retry)', ok: true }
          : { kind: 'register', ok: response.status === 201 },
    );
    if (answer?.status === 201) return { id: answer.body.data.satellite_id, key: answer.body.data.api_key };
    if (answer?.status !== 503) return null;
    const seconds = Number(answer.headers.get('retry-after'));
    await new Promise((r) => setTimeout(r, (Number.isFinite(seconds) ? seconds : 1) * 1000));
  }
  return null;
}
