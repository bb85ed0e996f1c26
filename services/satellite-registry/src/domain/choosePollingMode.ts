import type { CommandPriority } from '@orbital/contracts';

export type PollingMode = 'immediate' | 'high' | 'normal' | 'slow';

/** The interval of each mode: 2 s while immediate commands or a backlog flow, up to 60 s for a quiet satellite. */
export const pollingIntervalsMs: Record<PollingMode, number> = {
  immediate: 2000,
  high: 10000,
  normal: 30000,
  slow: 60000,
};

/** After this long without a command for it, a satellite is told to poll slowly. */
export const quietAfterMs = 10 * 60 * 1000;

export type PollingFacts = {
  active: boolean;
  /** Priorities of the commands this poll leased. */
  delivered: readonly CommandPriority[];
  /** Commands still waiting after this poll (the poll's limit left them behind). */
  stillPending: boolean;
  lastCommandAt: Date | null;
  now: Date;
};

/**
 * What the satellite should do next (the reply sets the interval, so the backend paces its satellites; the
 * satellite obeys it; error backoff stays the satellite's own). Work left behind or an immediate command
 * means come back at once; a high-priority command means follow-ups are likely soon; a satellite with no
 * command for ten minutes slows down, and an inactive one polls normally until its first heartbeat.
 */
export function choosePollingMode(facts: PollingFacts): { mode: PollingMode; next_poll_ms: number } {
  const mode = modeFor(facts);
  return { mode, next_poll_ms: pollingIntervalsMs[mode] };
}

function modeFor(facts: PollingFacts): PollingMode {
  if (!facts.active) return 'normal';
  if (facts.stillPending || facts.delivered.includes('immediate')) return 'immediate';
  if (facts.delivered.includes('high')) return 'high';
  if (facts.delivered.length > 0) return 'normal';
  const quiet = facts.lastCommandAt === null || facts.now.getTime() - facts.lastCommandAt.getTime() >= quietAfterMs;
  return quiet ? 'slow' : 'normal';
}
