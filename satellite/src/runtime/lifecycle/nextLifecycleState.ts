import type { InstallationStatus } from '@orbital/contracts';
import type {
  Failure,
  LifecycleEffect,
  LifecycleEvent,
  LifecyclePolicy,
  LifecycleState,
  Phase,
  Transition,
} from './lifecycleState.ts';

/** The delay before restart attempt `attempt` (1, 2, 3, ...): doubling from the base, up to the cap. */
export function backoffMs(policy: LifecyclePolicy, attempt: number): number {
  return Math.min(policy.backoffMaxMs, policy.backoffBaseMs * 2 ** (attempt - 1));
}

function iso(at: number): string {
  return new Date(at).toISOString();
}

/** The status effect, only when the status changes. */
function status(
  state: LifecycleState,
  next: InstallationStatus,
  reason: 'process' | 'recovery',
  message: string | null = null,
): LifecycleEffect[] {
  if (state.status === next) return [];
  return [{ type: 'status', status: next, previous: state.status, reason, message }];
}

function withStatus(state: LifecycleState, effects: LifecycleEffect[]): LifecycleState {
  let next = state;
  for (const effect of effects) if (effect.type === 'status') next = { ...next, status: effect.status };
  return next;
}

/**
 * After a failure (a connection that would not open, or one that ended): another attempt after the
 * back-off while attempts remain, otherwise failed for good. `crashes` already counts this failure.
 */
function afterFailure(
  state: LifecycleState,
  policy: LifecyclePolicy,
  failure: Failure,
  at: number,
  during: 'open' | 'run',
  crashed: Extract<LifecycleEffect, { type: 'emit' }> | undefined,
): Transition {
  const willRestart = state.restarts < policy.maxRestarts;
  const effects: LifecycleEffect[] = [];
  if (crashed?.event.type === 'mcp.server.crashed') {
    effects.push({
      type: 'emit',
      event: { ...crashed.event, data: { ...crashed.event.data, will_restart: willRestart } },
    });
  }
  let next: LifecycleState = { ...state, lastError: failure.message, lastErrorDuring: during };
  if (willRestart) {
    const attempt = next.restarts + 1;
    next = { ...next, restarts: attempt, phase: { name: 'restarting', attempt, previousPid: failure.pid } };
    effects.push(...status(state, policy.kind === 'process' ? 'restarting' : 'offline', 'process', failure.message));
    effects.push({ type: 'wait', ms: backoffMs(policy, attempt) });
    // A call that will not wait for the next attempt is answered now.
    if (policy.callDuringBackoff === 'try_now' && state.waiting > 0) {
      effects.push({ type: 'reject', why: 'unreachable' });
      next = { ...next, waiting: 0 };
    }
    return { state: withStatus(next, effects), effects };
  }
  next = { ...next, phase: { name: 'failed' } };
  if (policy.kind === 'process') {
    effects.push({
      type: 'emit',
      event: {
        type: 'mcp.server.permanently_failed',
        data: { total_crashes: Math.max(1, next.crashes), last_error: failure.message, failed_at: iso(at) },
      },
    });
  }
  effects.push(...status(state, 'permanently_failed', 'process', failure.message));
  if (state.waiting > 0) {
    effects.push({ type: 'reject', why: 'failed' });
    next = { ...next, waiting: 0 };
  }
  return { state: withStatus(next, effects), effects };
}

/** Opens the next connection, for `purpose`. */
function open(
  state: LifecycleState,
  at: number,
  purpose: 'start' | 'restart' | 'respawn',
  details: { attempt?: number; previousPid?: number; dormantSince?: number } = {},
): Transition {
  const connection = state.connection + 1;
  const phase: Phase = {
    name: 'starting',
    purpose,
    attempt: details.attempt ?? 0,
    since: at,
    previousPid: details.previousPid ?? 0,
    dormantSince: details.dormantSince ?? at,
  };
  return { state: { ...state, connection, phase }, effects: [{ type: 'open', connection }] };
}

/** Online: every waiting call gets the connection. */
function goOnline(
  state: LifecycleState,
  phase: Extract<Phase, { name: 'running' }>,
  reason: 'process' | 'recovery',
  effects: LifecycleEffect[],
): Transition {
  const all = [...effects, ...status(state, 'online', reason)];
  if (state.waiting > 0) all.push({ type: 'release' });
  return { state: withStatus({ ...state, phase, waiting: 0 }, all), effects: all };
}

const unchanged = (state: LifecycleState): Transition => ({ state, effects: [] });

/** A first start is the process's doing; a remote server coming back is a recovery. */
function reasonFor(purpose: 'start' | 'restart' | 'respawn', policy: LifecyclePolicy): 'process' | 'recovery' {
  return purpose === 'start' || policy.kind === 'process' ? 'process' : 'recovery';
}

/**
 * The one place where a server's lifecycle moves: pure, so every transition is tested without
 * processes or clocks.
 *
 * idle -start-> starting -opened-> discovering -discovered-> running (a first connection lists its tools
 * before it counts as online; later ones go online at once and list them in the background)
 * running -lost-> restarting -retryDue-> starting, or failed once the restart attempts are spent
 * starting -openFailed-> restarting or failed, likewise
 * running -idleCheck-> sleeping -closed-> dormant -need-> starting (respawn)
 * any -stop-> stopping -closed-> stopped
 */
export function nextLifecycleState(state: LifecycleState, event: LifecycleEvent, policy: LifecyclePolicy): Transition {
  const { phase } = state;
  switch (event.type) {
    case 'start': {
      if (phase.name !== 'idle') return unchanged(state);
      const opening = open(state, event.at, 'start');
      const effects = [...status(state, 'connecting', 'process'), ...opening.effects];
      return { state: withStatus(opening.state, effects), effects };
    }

    case 'need': {
      const waiting = { ...state, waiting: state.waiting + 1 };
      switch (phase.name) {
        case 'idle': {
          const started = nextLifecycleState(waiting, { type: 'start', at: event.at }, policy);
          return started;
        }
        case 'dormant':
          return open(waiting, event.at, 'respawn', { dormantSince: phase.since });
        case 'restarting':
          if (policy.callDuringBackoff === 'wait') return unchanged(waiting);
          return withEffectsFirst(
            [{ type: 'cancelWait' }],
            open(waiting, event.at, 'restart', { attempt: phase.attempt, previousPid: phase.previousPid }),
          );
        case 'running':
          // Already there: the caller takes the connection without waiting.
          return unchanged(state);
        case 'failed':
          return { state, effects: [{ type: 'reject', why: 'failed' }] };
        case 'stopping':
        case 'stopped':
          return { state, effects: [{ type: 'reject', why: 'stopping' }] };
        default:
          // starting, discovering, sleeping: the call waits for what is under way.
          return unchanged(waiting);
      }
    }

    case 'opened': {
      if (event.connection !== state.connection) return unchanged(state);
      if (phase.name === 'stopping') return { state, effects: [{ type: 'close' }] };
      if (phase.name !== 'starting') return { state, effects: [{ type: 'close' }] };
      const effects: LifecycleEffect[] = [];
      if (policy.kind === 'process') {
        if (phase.purpose === 'start') {
          effects.push({
            type: 'emit',
            event: {
              type: 'mcp.server.started',
              data: {
                process_id: event.pid,
                transport: 'stdio',
                tool_count: event.toolCount,
                spawn_duration_ms: event.at - phase.since,
              },
            },
          });
        } else if (phase.purpose === 'restart') {
          effects.push({
            type: 'emit',
            event: {
              type: 'mcp.server.restarted',
              data: {
                old_process_id: phase.previousPid,
                new_process_id: event.pid,
                restart_reason: 'crash',
                attempt_number: phase.attempt,
              },
            },
          });
        } else {
          effects.push({
            type: 'emit',
            event: {
              type: 'mcp.server.respawned',
              data: {
                process_id: event.pid,
                dormant_duration_seconds: (phase.since - phase.dormantSince) / 1000,
                respawn_duration_ms: event.at - phase.since,
              },
            },
          });
        }
      }
      const connected = { connection: event.connection, pid: event.pid, since: event.at };
      const reason = reasonFor(phase.purpose, policy);
      if (!state.discovered) {
        effects.push(...status(state, 'discovering_tools', reason));
        effects.push({ type: 'discover', blocking: true });
        const discovering: Phase = { name: 'discovering', purpose: phase.purpose, ...connected };
        return { state: withStatus({ ...state, phase: discovering }, effects), effects };
      }
      effects.push({ type: 'discover', blocking: false });
      return goOnline(state, { name: 'running', ...connected }, reason, effects);
    }

    case 'openFailed': {
      if (event.connection !== state.connection) return unchanged(state);
      if (phase.name === 'stopping') return { state: { ...state, phase: { name: 'stopped' } }, effects: [] };
      if (phase.name !== 'starting') return unchanged(state);
      const crashes = state.crashes + 1;
      const crashed = crashEvent(policy, event.failure, 0, crashes);
      return afterFailure({ ...state, crashes }, policy, event.failure, event.at, 'open', crashed);
    }

    case 'discovered': {
      const discovered = { ...state, discovered: true };
      if (phase.name !== 'discovering' || event.connection !== phase.connection) return unchanged(discovered);
      const running = { name: 'running' as const, connection: phase.connection, pid: phase.pid, since: phase.since };
      return goOnline(discovered, running, reasonFor(phase.purpose, policy), []);
    }

    case 'discoveryFailed': {
      if (phase.name !== 'discovering' || event.connection !== phase.connection) return unchanged(state);
      // A server that answers the handshake but cannot list its tools is of no use: a failed attempt.
      const failure: Failure = {
        message: `could not list its tools: ${event.message}`,
        pid: phase.pid,
        exitCode: null,
        signal: null,
      };
      const crashes = state.crashes + 1;
      const crashed = crashEvent(policy, failure, 0, crashes);
      return withEffectsFirst(
        [{ type: 'close' }],
        afterFailure({ ...state, crashes }, policy, failure, event.at, 'open', crashed),
      );
    }

    case 'lost': {
      if ((phase.name !== 'running' && phase.name !== 'discovering') || event.connection !== phase.connection) {
        return unchanged(state);
      }
      const uptimeMs = event.at - phase.since;
      const restarts = uptimeMs >= policy.stableAfterMs ? 0 : state.restarts;
      const crashes = state.crashes + 1;
      const crashed = crashEvent(policy, event.failure, uptimeMs / 1000, crashes);
      return withEffectsFirst(
        [{ type: 'discard' }],
        afterFailure({ ...state, crashes, restarts }, policy, event.failure, event.at, 'run', crashed),
      );
    }

    case 'retryDue': {
      if (phase.name !== 'restarting') return unchanged(state);
      return open(state, event.at, 'restart', { attempt: phase.attempt, previousPid: phase.previousPid });
    }

    case 'idleCheck': {
      if (phase.name !== 'running' || policy.idleTimeoutMs <= 0 || event.busy || state.waiting > 0) {
        return unchanged(state);
      }
      const idleMs = event.at - event.lastActivityAt;
      if (idleMs < policy.idleTimeoutMs) return unchanged(state);
      return {
        state: {
          ...state,
          phase: {
            name: 'sleeping',
            connection: phase.connection,
            pid: phase.pid,
            idleMs,
            lastActivityAt: event.lastActivityAt,
          },
        },
        effects: [{ type: 'close' }],
      };
    }

    case 'closed': {
      if (event.connection !== state.connection) return unchanged(state);
      if (phase.name === 'stopping') return { state: { ...state, phase: { name: 'stopped' } }, effects: [] };
      if (phase.name !== 'sleeping') return unchanged(state);
      const effects: LifecycleEffect[] = [];
      if (policy.kind === 'process') {
        effects.push({
          type: 'emit',
          event: {
            type: 'mcp.server.dormant',
            data: {
              process_id: phase.pid,
              idle_duration_seconds: phase.idleMs / 1000,
              last_activity_at: iso(phase.lastActivityAt),
            },
          },
        });
      }
      // A call that arrived while the connection closed opens the next one at once.
      if (state.waiting > 0)
        return withEffectsFirst(effects, open(state, event.at, 'respawn', { dormantSince: event.at }));
      return { state: { ...state, phase: { name: 'dormant', since: event.at } }, effects };
    }

    case 'stop': {
      switch (phase.name) {
        case 'stopping':
        case 'stopped':
          return unchanged(state);
        case 'discovering':
        case 'running':
          return stopping(state, true, [{ type: 'close' }]);
        case 'starting':
          // The attempt under way is abandoned; it ends as opened (then closed) or failed.
          return stopping(state, true, [{ type: 'close' }]);
        case 'sleeping':
          // Its close is already under way.
          return stopping(state, true, []);
        case 'restarting':
          return stopping(state, false, [{ type: 'cancelWait' }]);
        default:
          return stopping(state, false, []);
      }
    }
  }
}

function stopping(state: LifecycleState, closing: boolean, effects: LifecycleEffect[]): Transition {
  const all: LifecycleEffect[] = [...effects];
  if (state.waiting > 0) all.push({ type: 'reject', why: 'stopping' });
  const phase: Phase = closing ? { name: 'stopping', closing: true } : { name: 'stopped' };
  return { state: { ...state, phase, waiting: 0 }, effects: all };
}

function withEffectsFirst(first: LifecycleEffect[], transition: Transition): Transition {
  return { state: transition.state, effects: [...first, ...transition.effects] };
}

/** `mcp.server.crashed` for a process (will_restart is decided by afterFailure); none for a remote server. */
function crashEvent(
  policy: LifecyclePolicy,
  failure: Failure,
  uptimeSeconds: number,
  crashes: number,
): Extract<LifecycleEffect, { type: 'emit' }> | undefined {
  if (policy.kind !== 'process') return undefined;
  return {
    type: 'emit',
    event: {
      type: 'mcp.server.crashed',
      data: {
        process_id: failure.pid,
        exit_code: failure.exitCode,
        signal: failure.signal,
        uptime_seconds: uptimeSeconds,
        crash_count: crashes,
        will_restart: false,
      },
    },
  };
}
