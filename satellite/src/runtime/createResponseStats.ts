export type ResponseStatsSnapshot = {
  request_count: number;
  error_count: number;
  avg_response_ms: number | null;
  p95_response_ms: number | null;
  last_request_at: string | null;
};

export type ResponseStats = {
  record(durationMs: number, ok: boolean): void;
  snapshot(): ResponseStatsSnapshot;
};

/** Per-process request figures for the heartbeat; keeps the last `window` durations, not all of them. */
export function createResponseStats(window = 200): ResponseStats {
  const durations: number[] = [];
  let next = 0;
  let requestCount = 0;
  let errorCount = 0;
  let lastAt: number | null = null;
  return {
    record(durationMs, ok) {
      requestCount++;
      if (!ok) errorCount++;
      lastAt = Date.now();
      if (durations.length < window) durations.push(durationMs);
      else durations[next] = durationMs;
      next = (next + 1) % window;
    },
    snapshot() {
      const sorted = [...durations].sort((a, b) => a - b);
      const avg = sorted.length ? sorted.reduce((s, d) => s + d, 0) / sorted.length : null;
      const p95 = sorted.length
        ? (sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))] ?? null)
        : null;
      return {
        request_count: requestCount,
        error_count: errorCount,
        avg_response_ms: avg,
        p95_response_ms: p95,
        last_request_at: lastAt === null ? null : new Date(lastAt).toISOString(),
      };
    },
  };
}
