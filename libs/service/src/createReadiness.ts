export type ReadinessReport = { ready: boolean; checks: Record<string, 'ok' | 'failing'> };

/**
 * What a process needs to take work, as named checks: `process` (started, not shutting down), `nats`
 * (connected), and what the service adds (`database` for the owner of a schema). `/readyz` answers with
 * every check, and 503 while one fails; a check can be left out of the verdict (`/readyz?exclude=database`),
 * as Kubernetes' own API server allows, for a probe that must not take every replica out of a Service
 * because a dependency they all share is down.
 */
export type Readiness = {
  add(name: string, check: () => boolean): void;
  report(exclude?: readonly string[]): ReadinessReport;
  isReady(): boolean;
};

export function createReadiness(): Readiness {
  const checks = new Map<string, () => boolean>();
  const report = (exclude: readonly string[] = []): ReadinessReport => {
    const states: ReadinessReport['checks'] = {};
    let ready = true;
    for (const [name, check] of checks) {
      const ok = check();
      states[name] = ok ? 'ok' : 'failing';
      if (!ok && !exclude.includes(name)) ready = false;
    }
    return { ready, checks: states };
  };
  return {
    add(name, check) {
      checks.set(name, check);
    },
    report,
    isReady: () => report().ready,
  };
}

/** The names given in `exclude` query parameters (`?exclude=a&exclude=b` or `?exclude=a,b`). */
export function excludedChecks(url: string): string[] {
  const query = url.includes('?') ? url.slice(url.indexOf('?') + 1) : '';
  return new URLSearchParams(query)
    .getAll('exclude')
    .flatMap((value) => value.split(','))
    .filter(Boolean);
}
