import type { InstallationStatus } from '@orbital/contracts';

/**
 * The life of one upstream server (a stdio process or a remote connection) as data: a finite set of
 * phases, the counters that decide restarts, and the installation status the outside world sees. Only
 * `nextLifecycleState` changes it; the supervisor runs the effects it asks for and feeds back what
 * became of them as events.
 */

/** Why a connection attempt failed, or how a live connection ended, in words an operator acts on. */
export type Failure = {
  message: string;
  /** The process that tried or ended; 0 when there was none (a remote server, a command that never ran). */
  pid: number;
  exitCode: number | null;
  signal: string | null;
};

/** What differs between a stdio process and a remote connection; everything else is shared. */
export type LifecyclePolicy = {
  /**
   * `process`: every start, crash, restart, sleep and respawn is reported as its `mcp.server.*` event,
   * and waiting for a restart is status `restarting`. `connection`: a remote server is reported by its
   * status only, and waiting to reconnect is status `offline`.
   */
  kind: 'process' | 'connection';
  /** Restart attempts after failures before the server fails for good; Infinity never gives up. */
  maxRestarts: number;
  /** Attempt n waits `min(backoffMaxMs, backoffBaseMs * 2^(n-1))` first. */
  backoffBaseMs: number;
  backoffMaxMs: number;
  /** A connection that lived this long before it ended earns a full set of restart attempts again. */
  stableAfterMs: number;
  /** A connection idle this long (nothing in flight) is closed until the next call; 0 never. */
  idleTimeoutMs: number;
  /**
   * What a call does while the server waits to try again: `wait` for the attempt (a process restarts
   * within seconds, or fails for good), or `try_now` (a remote server may have come back since; the
   * call gets an answer at once either way).
   */
  callDuringBackoff: 'wait' | 'try_now';
};

export type Phase =
  /** Configured, not started. */
  | { name: 'idle' }
  /** A connection is being opened (spawn and handshake, or connect and handshake). */
  | {
      name: 'starting';
      purpose: 'start' | 'restart' | 'respawn';
      /** The restart attempt this is (0 for a first start or a respawn). */
      attempt: number;
      since: number;
      /** The process that ended before a restart, for `mcp.server.restarted`. */
      previousPid: number;
      /** When it went dormant, for `mcp.server.respawned`. */
      dormantSince: number;
    }
  /** Connected for the first time: its tools are being listed before it counts as online. */
  | {
      name: 'discovering';
      purpose: 'start' | 'restart' | 'respawn';
      connection: number;
      pid: number;
      since: number;
    }
  | { name: 'running'; connection: number; pid: number; since: number }
  /** Closing an idle connection on the way to dormant. */
  | { name: 'sleeping'; connection: number; pid: number; idleMs: number; lastActivityAt: number }
  /** Closed while idle; the next call opens a connection again. Its tools stay listed. */
  | { name: 'dormant'; since: number }
  /** Waiting out the back-off before restart attempt `attempt`. */
  | { name: 'restarting'; attempt: number; previousPid: number }
  /** Restart attempts spent: stays so until an operator restarts the installation. */
  | { name: 'failed' }
  /** Stopping: `closing` while a connection (open or being opened) still has to end. */
  | { name: 'stopping'; closing: boolean }
  | { name: 'stopped' };

export type PhaseName = Phase['name'];

export type LifecycleState = {
  phase: Phase;
  status: InstallationStatus;
  /** Every unexpected end and every failed attempt counts. */
  crashes: number;
  /** Restart attempts made since the last stable run. */
  restarts: number;
  lastError: string | null;
  /** Whether `lastError` ended a live connection (`run`) or kept one from opening (`open`). */
  lastErrorDuring: 'open' | 'run';
  /** Whether the server's tools have been listed once: a later connection goes online at once. */
  discovered: boolean;
  /** Calls waiting for a connection. */
  waiting: number;
  /** The number of the last connection attempt; events about older ones are ignored. */
  connection: number;
};

export const initialLifecycleState: LifecycleState = {
  phase: { name: 'idle' },
  status: 'provisioning',
  crashes: 0,
  restarts: 0,
  lastError: null,
  lastErrorDuring: 'open',
  discovered: false,
  waiting: 0,
  connection: 0,
};

type StatusReason = 'process' | 'recovery';

/** What the transition asks the supervisor to do, in order. */
export type LifecycleEffect =
  /** Open connection number `connection`; report `opened` or `openFailed` with that number. */
  | { type: 'open'; connection: number }
  /** Close the live connection gracefully, or abandon the one being opened; report `closed` (or the open's end). */
  | { type: 'close' }
  /** Drop what is left of a connection that ended on its own (no report). */
  | { type: 'discard' }
  /** List the tools of the live connection; report `discovered` or `discoveryFailed` when `blocking`. */
  | { type: 'discover'; blocking: boolean }
  /** Report `retryDue` after `ms`. */
  | { type: 'wait'; ms: number }
  | { type: 'cancelWait' }
  | {
      type: 'status';
      status: InstallationStatus;
      previous: InstallationStatus;
      reason: StatusReason;
      message: string | null;
    }
  | { type: 'emit'; event: ProcessEvent }
  /** Hand the live connection to every waiting call. */
  | { type: 'release' }
  /** Fail every waiting call: the server failed, is unreachable for now, or is stopping. */
  | { type: 'reject'; why: 'failed' | 'unreachable' | 'stopping' };

/** The process events of `mcp.server.*`, without the fields naming the server (the supervisor adds them). */
export type ProcessEvent =
  | {
      type: 'mcp.server.started';
      data: { process_id: number; transport: 'stdio'; tool_count: number; spawn_duration_ms: number };
    }
  | {
      type: 'mcp.server.crashed';
      data: {
        process_id: number;
        exit_code: number | null;
        signal: string | null;
        uptime_seconds: number;
        crash_count: number;
        will_restart: boolean;
      };
    }
  | {
      type: 'mcp.server.restarted';
      data: {
        old_process_id: number;
        new_process_id: number;
        restart_reason: 'crash';
        attempt_number: number;
      };
    }
  | {
      type: 'mcp.server.permanently_failed';
      data: { total_crashes: number; last_error: string; failed_at: string };
    }
  | {
      type: 'mcp.server.dormant';
      data: { process_id: number; idle_duration_seconds: number; last_activity_at: string };
    }
  | {
      type: 'mcp.server.respawned';
      data: { process_id: number; dormant_duration_seconds: number; respawn_duration_ms: number };
    };

/** What happened: asked for by the supervisor's owner, or the outcome of an effect. Times are clock readings. */
export type LifecycleEvent =
  | { type: 'start'; at: number }
  /** A call needs the connection. */
  | { type: 'need'; at: number }
  | { type: 'opened'; connection: number; at: number; pid: number; toolCount: number }
  | { type: 'openFailed'; connection: number; at: number; failure: Failure }
  | { type: 'discovered'; connection: number }
  | { type: 'discoveryFailed'; connection: number; at: number; message: string }
  /** The live connection ended without being asked to (a crash, a lost stream, a failed liveness check). */
  | { type: 'lost'; connection: number; at: number; failure: Failure }
  | { type: 'retryDue'; at: number }
  /** The idle check: `busy` while calls are in flight. */
  | { type: 'idleCheck'; at: number; lastActivityAt: number; busy: boolean }
  | { type: 'closed'; connection: number; at: number }
  | { type: 'stop' };

export type Transition = { state: LifecycleState; effects: LifecycleEffect[] };
