export type ReadinessReport = { ready: boolean; checks: Record<string, 'ok' | 'failing'> };

export type ReadinessCheckOptions = {
  /**
   * False for a dependency whose outage the process answers itself (its routes that need it answer 503)
   * while its other work goes on: the check is reported but does not make the process unready. A probe
   * failing on a dependency every replica shares would take all of them out of a Service at once, and the
   * work that does not need it with them.
   */
  gates?: boolean;
};

/**
 * What a process needs to take work, as named checks: `process` (started, not shutting down), `nats`
 * (connected), and what the service adds (`database` for the owner of a schema, `redis`, ...). `/readyz`
 * answers with every check, and 503 while one that gates fails; a check can also be left out of the
 * verdict by the caller (`/readyz?exclude=database`), as Kubernetes' own API server allows.
 */
export type Readiness = {
  add(name: string, check: () => boolean, options?: ReadinessCheckOptions): void;
  report(exclude?: readonly string[]): ReadinessReport;
  isReady(): boolean;
};

export function createReadiness(): Readiness {
  const checks = new Map<string, { check: () => boolean; gates: boolean }>();
  const report = (exclude: readonly string[] = []): ReadinessReport => {
    const states: ReadinessReport['checks'] = {};
    let ready = true;
    for (const [name, { check, gates }] of checks) {
      const ok = check();
      states[name] = ok ? 'ok' : 'failing';
      if (!ok && gates && !exclude.includes(name)) ready = false;
    }
    return { ready, checks: states };
  };
  return {
    add(name, check, options = {}) {
      checks.set(name, { check, gates: options.gates ?? true });
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
