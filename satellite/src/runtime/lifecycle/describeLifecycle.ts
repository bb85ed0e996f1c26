import type { ProcessHealth } from '@orbital/contracts';
import type { LifecyclePolicy, LifecycleState } from './lifecycleState.ts';

/**
 * Why a server is not online, in words an agent and an operator can act on, or null when it is:
 * `starting`, `restarting (attempt 2 of 3) after: exited with code 7 (...)`, `permanently failed
 * after 3 restarts: ...`, `connection lost: ...` or `not reachable: ...` for a remote server.
 */
export function unavailableReasonOf(state: LifecycleState, policy: LifecyclePolicy): string | null {
  if (state.status === 'online') return null;
  const { phase, lastError } = state;
  const waitingToRetry =
    phase.name === 'restarting' || (phase.name === 'starting' && phase.purpose === 'restart' && lastError !== null);
  if (phase.name === 'failed') return `permanently failed after ${policy.maxRestarts} restarts: ${lastError ?? ''}`;
  if (waitingToRetry) {
    const attempt = phase.name === 'restarting' || phase.name === 'starting' ? phase.attempt : 0;
    if (policy.kind === 'process')
      return `restarting (attempt ${attempt} of ${policy.maxRestarts}) after: ${lastError}`;
    return `${state.lastErrorDuring === 'run' ? 'connection lost' : 'not reachable'}: ${lastError}`;
  }
  switch (phase.name) {
    case 'idle':
    case 'starting':
    case 'discovering':
      return 'starting';
    case 'stopping':
    case 'stopped':
      return 'stopped';
    default:
      return lastError ?? `status ${state.status}`;
  }
}

/** Healthy while connected, unhealthy while failing, unknown otherwise (not started, asleep, stopped). */
export function healthOf(state: LifecycleState): ProcessHealth {
  switch (state.phase.name) {
    case 'running':
      return 'healthy';
    case 'restarting':
    case 'failed':
      return 'unhealthy';
    case 'starting':
      return state.phase.purpose === 'restart' ? 'unhealthy' : 'unknown';
    default:
      return 'unknown';
  }
}
