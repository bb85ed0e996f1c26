import { describe, expect, it } from 'vitest';
import { healthOf, unavailableReasonOf } from './describeLifecycle.ts';
import {
  type Failure,
  initialLifecycleState,
  type LifecycleEffect,
  type LifecycleEvent,
  type LifecyclePolicy,
  type LifecycleState,
  type ProcessEvent,
} from './lifecycleState.ts';
import { backoffMs, nextLifecycleState } from './nextLifecycleState.ts';

const stdio: LifecyclePolicy = {
  kind: 'process',
  maxRestarts: 3,
  backoffBaseMs: 1000,
  backoffMaxMs: Number.POSITIVE_INFINITY,
  stableAfterMs: 600_000,
  idleTimeoutMs: 300_000,
  callDuringBackoff: 'wait',
};

const remote: LifecyclePolicy = {
  kind: 'connection',
  maxRestarts: Number.POSITIVE_INFINITY,
  backoffBaseMs: 1000,
  backoffMaxMs: 60_000,
  stableAfterMs: 0,
  idleTimeoutMs: 0,
  callDuringBackoff: 'try_now',
};

const exited = (code: number, pid = 41): Failure => ({
  message: `exited with code ${code}`,
  pid,
  exitCode: code,
  signal: null,
});

/** Plays events in order from a state, keeping every effect. */
function play(policy: LifecyclePolicy, events: LifecycleEvent[], from: LifecycleState = initialLifecycleState) {
  let state = from;
  const effects: LifecycleEffect[][] = [];
  for (const event of events) {
    const transition = nextLifecycleState(state, event, policy);
    state = transition.state;
    effects.push(transition.effects);
  }
  return { state, effects, last: effects[effects.length - 1] ?? [] };
}

const types = (effects: LifecycleEffect[]) =>
  effects.map((effect) => (effect.type === 'emit' ? effect.event.type : effect.type));
const emitted = <T extends ProcessEvent['type']>(effects: LifecycleEffect[], type: T) =>
  effects.flatMap((effect) =>
    effect.type === 'emit' && effect.event.type === type
      ? [effect.event.data as Extract<ProcessEvent, { type: T }>['data']]
      : [],
  );
const statuses = (effects: LifecycleEffect[][]) =>
  effects.flat().flatMap((effect) => (effect.type === 'status' ? [effect.status] : []));

/** A stdio server that started and listed its tools: running as connection 1, pid 40, since t=1000. */
function running(policy = stdio) {
  return play(policy, [
    { type: 'start', at: 0 },
    { type: 'opened', connection: 1, at: 1000, pid: 40, toolCount: 0 },
    { type: 'discovered', connection: 1 },
  ]).state;
}

describe('a first start', () => {
  it('opens, reports the process, lists its tools, and only then is online', () => {
    const { state, effects } = play(stdio, [
      { type: 'start', at: 0 },
      { type: 'opened', connection: 1, at: 250, pid: 40, toolCount: 0 },
      { type: 'discovered', connection: 1 },
    ]);
    expect(types(effects[0] ?? [])).toEqual(['status', 'open']);
    expect(types(effects[1] ?? [])).toEqual(['mcp.server.started', 'status', 'discover']);
    expect(emitted(effects[1] ?? [], 'mcp.server.started')).toEqual([
      { process_id: 40, transport: 'stdio', tool_count: 0, spawn_duration_ms: 250 },
    ]);
    expect(effects[1]).toContainEqual({ type: 'discover', blocking: true });
    expect(statuses(effects)).toEqual(['connecting', 'discovering_tools', 'online']);
    expect(state.phase).toEqual({ name: 'running', connection: 1, pid: 40, since: 250 });
    expect(unavailableReasonOf(state, stdio)).toBeNull();
    expect(healthOf(state)).toBe('healthy');
  });

  it('hands the connection to calls that waited for it', () => {
    const { effects } = play(stdio, [
      { type: 'start', at: 0 },
      { type: 'need', at: 1 },
      { type: 'need', at: 2 },
      { type: 'opened', connection: 1, at: 10, pid: 40, toolCount: 0 },
      { type: 'discovered', connection: 1 },
    ]);
    expect(effects[4]).toContainEqual({ type: 'release' });
    expect(effects.slice(0, 4).flat()).not.toContainEqual({ type: 'release' });
  });

  it('is starting until then, for lookups and health answers', () => {
    const { state } = play(stdio, [{ type: 'start', at: 0 }]);
    expect(unavailableReasonOf(state, stdio)).toBe('starting');
    expect(state.status).toBe('connecting');
    expect(healthOf(state)).toBe('unknown');
  });

  it('counts a server that cannot list its tools as a failed attempt and closes it', () => {
    const { state, last } = play(stdio, [
      { type: 'start', at: 0 },
      { type: 'opened', connection: 1, at: 10, pid: 40, toolCount: 0 },
      { type: 'discoveryFailed', connection: 1, at: 20, message: 'Method not found' },
    ]);
    expect(types(last)).toEqual(['close', 'mcp.server.crashed', 'status', 'wait']);
    expect(state.lastError).toBe('could not list its tools: Method not found');
    expect(state.phase).toEqual({ name: 'restarting', attempt: 1, previousPid: 40 });
  });
});

describe('a stdio process that crashes', () => {
  it('is reported, restarted after the back-off, and online again with its tools relisted in the background', () => {
    const { state, effects } = play(
      stdio,
      [
        { type: 'lost', connection: 1, at: 6000, failure: exited(7, 40) },
        { type: 'retryDue', at: 7000 },
        { type: 'opened', connection: 2, at: 7100, pid: 41, toolCount: 3 },
      ],
      running(),
    );
    expect(types(effects[0] ?? [])).toEqual(['discard', 'mcp.server.crashed', 'status', 'wait']);
    expect(emitted(effects[0] ?? [], 'mcp.server.crashed')).toEqual([
      { process_id: 40, exit_code: 7, signal: null, uptime_seconds: 5, crash_count: 1, will_restart: true },
    ]);
    expect(effects[0]).toContainEqual({ type: 'wait', ms: 1000 });
    expect(effects[1]).toEqual([{ type: 'open', connection: 2 }]);
    expect(emitted(effects[2] ?? [], 'mcp.server.restarted')).toEqual([
      { old_process_id: 40, new_process_id: 41, restart_reason: 'crash', attempt_number: 1 },
    ]);
    expect(effects[2]).toContainEqual({ type: 'discover', blocking: false });
    expect(statuses(effects)).toEqual(['restarting', 'online']);
    expect(state.status).toBe('online');
  });

  it('says which attempt it waits for and why, until then', () => {
    const { state } = play(stdio, [{ type: 'lost', connection: 1, at: 6000, failure: exited(7) }], running());
    expect(unavailableReasonOf(state, stdio)).toBe('restarting (attempt 1 of 3) after: exited with code 7');
    expect(healthOf(state)).toBe('unhealthy');
  });

  it('keeps calls waiting through a restart', () => {
    const { effects } = play(
      stdio,
      [
        { type: 'lost', connection: 1, at: 6000, failure: exited(7) },
        { type: 'need', at: 6001 },
        { type: 'retryDue', at: 7000 },
        { type: 'opened', connection: 2, at: 7001, pid: 41, toolCount: 3 },
      ],
      running(),
    );
    expect(effects[1]).toEqual([]);
    expect(effects[3]).toContainEqual({ type: 'release' });
  });

  it('fails for good on the fourth crash in a row, after 1, 2 and 4 s of back-off', () => {
    let state = running();
    const waits: number[] = [];
    const all: LifecycleEffect[] = [];
    for (let crash = 1; crash <= 4; crash++) {
      const connection = state.connection;
      const step = play(stdio, [{ type: 'lost', connection, at: 10_000 * crash, failure: exited(7) }], state);
      state = step.state;
      all.push(...step.last);
      for (const effect of step.last) if (effect.type === 'wait') waits.push(effect.ms);
      if (crash < 4) {
        state = play(
          stdio,
          [
            { type: 'retryDue', at: 10_000 * crash + 5000 },
            { type: 'opened', connection: connection + 1, at: 10_000 * crash + 5001, pid: 50 + crash, toolCount: 3 },
          ],
          state,
        ).state;
      }
    }
    expect(waits).toEqual([1000, 2000, 4000]);
    expect(emitted(all, 'mcp.server.crashed').map((c) => [c.crash_count, c.will_restart])).toEqual([
      [1, true],
      [2, true],
      [3, true],
      [4, false],
    ]);
    expect(emitted(all, 'mcp.server.permanently_failed')).toEqual([
      { total_crashes: 4, last_error: 'exited with code 7', failed_at: new Date(40_000).toISOString() },
    ]);
    expect(state.phase.name).toBe('failed');
    expect(state.status).toBe('permanently_failed');
    expect(unavailableReasonOf(state, stdio)).toBe('permanently failed after 3 restarts: exited with code 7');
  });

  it('earns its restart attempts back after a stable run', () => {
    let state = running();
    state = { ...state, restarts: 3 };
    const { last } = play(stdio, [{ type: 'lost', connection: 1, at: 1000 + 600_000, failure: exited(1) }], state);
    expect(emitted(last, 'mcp.server.crashed')[0]?.will_restart).toBe(true);
    expect(last).toContainEqual({ type: 'wait', ms: 1000 });
  });

  it('fails the calls waiting through its last restart when that fails too', () => {
    const { effects } = play(
      stdio,
      [
        { type: 'lost', connection: 1, at: 2, failure: exited(1) },
        { type: 'need', at: 3 },
        { type: 'retryDue', at: 4000 },
        { type: 'openFailed', connection: 2, at: 4001, failure: exited(1, 0) },
      ],
      { ...running(), restarts: 2 },
    );
    expect(effects[1]).toEqual([]);
    expect(effects[3]).toContainEqual({ type: 'reject', why: 'failed' });
  });

  it('ignores news of a connection it has already replaced', () => {
    const state = play(
      stdio,
      [
        { type: 'lost', connection: 1, at: 6000, failure: exited(7) },
        { type: 'retryDue', at: 7000 },
        { type: 'opened', connection: 2, at: 7001, pid: 41, toolCount: 3 },
      ],
      running(),
    ).state;
    const { state: after, last } = play(stdio, [{ type: 'lost', connection: 1, at: 8000, failure: exited(9) }], state);
    expect(last).toEqual([]);
    expect(after).toEqual(state);
  });
});

describe('a process that never starts', () => {
  it('counts each failed attempt as a crash without a process, then fails for good', () => {
    const failure: Failure = { message: 'failed to start: spawn /x ENOENT', pid: 0, exitCode: null, signal: null };
    const events: LifecycleEvent[] = [{ type: 'start', at: 0 }];
    for (let attempt = 1; attempt <= 4; attempt++) {
      events.push({ type: 'openFailed', connection: attempt, at: attempt * 10, failure });
      if (attempt < 4) events.push({ type: 'retryDue', at: attempt * 10 + 5 });
    }
    const { state, effects } = play(stdio, events);
    const crashes = emitted(effects.flat(), 'mcp.server.crashed');
    expect(crashes.map((c) => [c.process_id, c.exit_code, c.uptime_seconds, c.will_restart])).toEqual([
      [0, null, 0, true],
      [0, null, 0, true],
      [0, null, 0, true],
      [0, null, 0, false],
    ]);
    expect(statuses(effects)).toEqual(['connecting', 'restarting', 'permanently_failed']);
    expect(unavailableReasonOf(state, stdio)).toBe(
      'permanently failed after 3 restarts: failed to start: spawn /x ENOENT',
    );
  });

  it('lists its tools when it first comes up on a restart attempt', () => {
    const failure: Failure = {
      message: 'exited during the MCP handshake with code 5',
      pid: 12,
      exitCode: 5,
      signal: null,
    };
    const { state, effects } = play(stdio, [
      { type: 'start', at: 0 },
      { type: 'openFailed', connection: 1, at: 10, failure },
      { type: 'retryDue', at: 1010 },
      { type: 'opened', connection: 2, at: 1020, pid: 13, toolCount: 0 },
      { type: 'discovered', connection: 2 },
    ]);
    expect(effects[3]).toContainEqual({ type: 'discover', blocking: true });
    expect(statuses(effects)).toEqual(['connecting', 'restarting', 'discovering_tools', 'online']);
    expect(state.phase.name).toBe('running');
  });
});

describe('idle processes', () => {
  it('go dormant when idle long enough and nothing is in flight, and keep their status', () => {
    const base = running();
    expect(play(stdio, [{ type: 'idleCheck', at: 400_000, lastActivityAt: 0, busy: true }], base).last).toEqual([]);
    expect(play(stdio, [{ type: 'idleCheck', at: 200_000, lastActivityAt: 0, busy: false }], base).last).toEqual([]);
    const { state, effects } = play(
      stdio,
      [
        { type: 'idleCheck', at: 400_000, lastActivityAt: 60_000, busy: false },
        { type: 'closed', connection: 1, at: 400_100 },
      ],
      base,
    );
    expect(effects[0]).toEqual([{ type: 'close' }]);
    expect(emitted(effects[1] ?? [], 'mcp.server.dormant')).toEqual([
      { process_id: 40, idle_duration_seconds: 340, last_activity_at: new Date(60_000).toISOString() },
    ]);
    expect(state.phase).toEqual({ name: 'dormant', since: 400_100 });
    expect(state.status).toBe('online');
  });

  it('are respawned by the next call, which the respawn is reported to', () => {
    const dormant = play(
      stdio,
      [
        { type: 'idleCheck', at: 400_000, lastActivityAt: 0, busy: false },
        { type: 'closed', connection: 1, at: 400_000 },
      ],
      running(),
    ).state;
    const { effects } = play(
      stdio,
      [
        { type: 'need', at: 405_000 },
        { type: 'need', at: 405_001 },
        { type: 'opened', connection: 2, at: 405_300, pid: 77, toolCount: 3 },
      ],
      dormant,
    );
    expect(effects[0]).toEqual([{ type: 'open', connection: 2 }]);
    expect(effects[1]).toEqual([]);
    expect(emitted(effects[2] ?? [], 'mcp.server.respawned')).toEqual([
      { process_id: 77, dormant_duration_seconds: 5, respawn_duration_ms: 300 },
    ]);
    expect(types(effects[2] ?? [])).toEqual(['mcp.server.respawned', 'discover', 'release']);
  });

  it('respawn at once for a call that arrived while the process was closing', () => {
    const { last } = play(
      stdio,
      [
        { type: 'idleCheck', at: 400_000, lastActivityAt: 0, busy: false },
        { type: 'need', at: 400_010 },
        { type: 'closed', connection: 1, at: 400_020 },
      ],
      running(),
    );
    expect(types(last)).toEqual(['mcp.server.dormant', 'open']);
  });

  it('never happen to remote servers', () => {
    const base = running(remote);
    expect(play(remote, [{ type: 'idleCheck', at: 10 ** 9, lastActivityAt: 0, busy: false }], base).last).toEqual([]);
  });
});

describe('a remote server', () => {
  it('is offline, not restarting, when lost, and reconnects with a growing back-off up to its cap', () => {
    let state = running(remote);
    const waits: number[] = [];
    const all: LifecycleEffect[][] = [];
    let step = play(
      remote,
      [{ type: 'lost', connection: 1, at: 5000, failure: { ...exited(0), message: 'fetch failed', pid: 0 } }],
      state,
    );
    state = step.state;
    all.push(...step.effects);
    for (let attempt = 2; attempt <= 9; attempt++) {
      step = play(
        remote,
        [
          { type: 'retryDue', at: 10_000 * attempt },
          {
            type: 'openFailed',
            connection: state.connection + 1,
            at: 10_000 * attempt + 1,
            failure: { message: 'connect ECONNREFUSED', pid: 0, exitCode: null, signal: null },
          },
        ],
        state,
      );
      state = step.state;
      all.push(...step.effects);
    }
    for (const effect of all.flat()) if (effect.type === 'wait') waits.push(effect.ms);
    expect(waits).toEqual([1000, 2000, 4000, 8000, 16_000, 32_000, 60_000, 60_000, 60_000]);
    expect(all.flat().filter((e) => e.type === 'emit')).toEqual([]);
    expect(statuses(all)).toEqual(['offline']);
    expect(state.phase.name).toBe('restarting');
    expect(unavailableReasonOf(state, remote)).toBe('not reachable: connect ECONNREFUSED');
  });

  it('says the connection was lost while it waits for the first reconnection', () => {
    const { state } = play(
      remote,
      [
        {
          type: 'lost',
          connection: 1,
          at: 5,
          failure: { message: 'fetch failed', pid: 0, exitCode: null, signal: null },
        },
      ],
      running(remote),
    );
    expect(unavailableReasonOf(state, remote)).toBe('connection lost: fetch failed');
  });

  it('comes back online as a recovery, its tools relisted in the background', () => {
    const { effects } = play(
      remote,
      [
        { type: 'lost', connection: 1, at: 5, failure: { message: 'gone', pid: 0, exitCode: null, signal: null } },
        { type: 'retryDue', at: 1005 },
        { type: 'opened', connection: 2, at: 1010, pid: 0, toolCount: 5 },
      ],
      running(remote),
    );
    expect(effects[2]).toEqual([
      { type: 'discover', blocking: false },
      { type: 'status', status: 'online', previous: 'offline', reason: 'recovery', message: null },
    ]);
  });

  it('tries at once for a call that finds it offline, and answers that call either way', () => {
    const lost = play(
      remote,
      [{ type: 'lost', connection: 1, at: 5, failure: { message: 'gone', pid: 0, exitCode: null, signal: null } }],
      running(remote),
    ).state;
    const tried = play(remote, [{ type: 'need', at: 10 }], lost);
    expect(tried.last).toEqual([{ type: 'cancelWait' }, { type: 'open', connection: 2 }]);
    const refused = play(
      remote,
      [
        {
          type: 'openFailed',
          connection: 2,
          at: 11,
          failure: { message: 'connect ECONNREFUSED', pid: 0, exitCode: null, signal: null },
        },
      ],
      tried.state,
    );
    expect(refused.last).toEqual([
      { type: 'wait', ms: 2000 },
      { type: 'reject', why: 'unreachable' },
    ]);
    const back = play(remote, [{ type: 'opened', connection: 2, at: 11, pid: 0, toolCount: 5 }], tried.state);
    expect(back.last).toContainEqual({ type: 'release' });
  });

  it('keeps its first status words while it has never been reached', () => {
    const { state, effects } = play(remote, [
      { type: 'start', at: 0 },
      {
        type: 'openFailed',
        connection: 1,
        at: 5,
        failure: { message: 'HTTP 401', pid: 0, exitCode: null, signal: null },
      },
    ]);
    expect(statuses(effects)).toEqual(['connecting', 'offline']);
    expect(unavailableReasonOf(state, remote)).toBe('not reachable: HTTP 401');
  });
});

describe('stopping', () => {
  it('closes a live connection and is stopped once it has closed', () => {
    const { state, effects } = play(stdio, [{ type: 'need', at: 1 }, { type: 'stop' }], {
      ...running(),
      phase: { name: 'starting', purpose: 'respawn', attempt: 0, since: 0, previousPid: 0, dormantSince: 0 },
    });
    expect(effects[1]).toEqual([{ type: 'close' }, { type: 'reject', why: 'stopping' }]);
    expect(state.phase).toEqual({ name: 'stopping', closing: true });
    const opened = play(stdio, [{ type: 'opened', connection: state.connection, at: 2, pid: 9, toolCount: 0 }], state);
    expect(opened.last).toEqual([{ type: 'close' }]);
    const closed = play(stdio, [{ type: 'closed', connection: state.connection, at: 3 }], opened.state);
    expect(closed.state.phase.name).toBe('stopped');
    const failed = play(
      stdio,
      [{ type: 'openFailed', connection: state.connection, at: 2, failure: exited(1) }],
      state,
    );
    expect(failed.state.phase.name).toBe('stopped');
    expect(failed.last).toEqual([]);
  });

  it('stops at once when nothing is connected, cancelling a pending restart', () => {
    const restarting = play(stdio, [{ type: 'lost', connection: 1, at: 5, failure: exited(1) }], running()).state;
    const { state, last } = play(stdio, [{ type: 'stop' }], restarting);
    expect(last).toEqual([{ type: 'cancelWait' }]);
    expect(state.phase.name).toBe('stopped');
    expect(unavailableReasonOf({ ...state, status: 'restarting' }, stdio)).toBe('stopped');
    expect(play(stdio, [{ type: 'retryDue', at: 1000 }], state).last).toEqual([]);
    expect(play(stdio, [{ type: 'need', at: 1000 }], state).last).toEqual([{ type: 'reject', why: 'stopping' }]);
  });

  it('closes a running connection', () => {
    const { state, last } = play(stdio, [{ type: 'stop' }], running());
    expect(last).toEqual([{ type: 'close' }]);
    expect(play(stdio, [{ type: 'closed', connection: 1, at: 9 }], state).state.phase.name).toBe('stopped');
  });
});

describe('back-off', () => {
  it('doubles from the base up to the cap', () => {
    expect([1, 2, 3, 4].map((n) => backoffMs(stdio, n))).toEqual([1000, 2000, 4000, 8000]);
    expect([6, 7, 8].map((n) => backoffMs(remote, n))).toEqual([32_000, 60_000, 60_000]);
  });
});
