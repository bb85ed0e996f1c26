import type { CallToolResult } from '@modelcontextprotocol/client';
import type { SatelliteEventType, ServerConfiguration } from '@orbital/contracts';
import { AppError } from '@orbital/errors';
import type { Logger } from '@orbital/logger';
import { type Scheduler, type SchedulerTimer, systemScheduler } from '../backend/scheduler.ts';
import type { EventSink } from '../events/eventSink.ts';
import { createResponseStats } from './createResponseStats.ts';
import type { ServerTools } from './createToolCatalogue.ts';
import { healthOf, unavailableReasonOf } from './lifecycle/describeLifecycle.ts';
import {
  type Failure,
  initialLifecycleState,
  type LifecycleEffect,
  type LifecycleEvent,
  type LifecyclePolicy,
  type LifecycleState,
  type PhaseName,
} from './lifecycle/lifecycleState.ts';
import { nextLifecycleState } from './lifecycle/nextLifecycleState.ts';
import type { ManagedServer, ServerSnapshot, ToolCallOptions } from './managedServer.ts';
import { relistDelayOf } from './relistDelayOf.ts';
import { serverRefOf } from './serverRefOf.ts';
import { ConnectFailure, type UpstreamConnection, type UpstreamConnector } from './upstreamConnection.ts';

type Live = { connection: UpstreamConnection; number: number };
type Waiter = { resolve(connection: UpstreamConnection): void; reject(error: Error): void };

/** How often a connected server's tools are listed again unasked, and how long one listing may take. */
export type RelistSettings = {
  /** The mean wait between re-lists (each wait is jittered, see `relistDelayOf`); 0 never re-lists unasked. */
  intervalMs: number;
  /** A re-list not answered within this is abandoned; the last listing stays. */
  timeoutMs: number;
};

/**
 * Runs one installation's lifecycle: feeds events to `nextLifecycleState` and carries out the effects
 * it returns (open and close connections through the connector, list tools into the catalogue, arm the
 * back-off timer, report events and status changes, hand connections to waiting calls), turning what
 * becomes of each effect into the next event. Nothing here decides; every decision is the transition's.
 *
 * Besides, while a connection is up its tools are listed again on a jittered schedule: a server may
 * change a tool without saying so (a stateless remote server cannot; a hostile one would not), and a
 * re-list is the only way such a change reaches the catalogue, and so the pinned-definition check,
 * before the next reconnection.
 */
export function createServerSupervisor(options: {
  config: ServerConfiguration;
  serverName: string;
  connector: UpstreamConnector;
  policy: LifecyclePolicy;
  tools: ServerTools;
  events: EventSink;
  logger: Logger;
  /** The status changed: the catalogue's online lists are stale. */
  onChange: () => void;
  relist?: RelistSettings;
  /** The clock of the re-list schedule (a manual one in tests). */
  scheduler?: Scheduler;
  now?: () => number;
}): ManagedServer & { phase(): PhaseName; pid(): number | undefined } {
  const { config, serverName, connector, policy, tools, events } = options;
  const now = options.now ?? Date.now;
  const scheduler = options.scheduler ?? systemScheduler;
  const ref = serverRefOf(config);
  const log = options.logger.child({ installation_id: config.installation_id, server: serverName });
  const stats = createResponseStats();

  let state: LifecycleState = initialLifecycleState;
  let live: Live | undefined;
  let opening: { number: number; controller: AbortController } | undefined;
  let retryTimer: NodeJS.Timeout | undefined;
  let relistTimer: SchedulerTimer | undefined;
  let waiters: Waiter[] = [];
  /** Calls in flight through this server, waiting ones included: a dormant server is not put to sleep under them. */
  let inFlight = 0;
  let lastActivityAt = now();
  /** Resolved when the state satisfies their condition (the first start settled, the server stopped). */
  const watchers = new Set<{ done(state: LifecycleState): boolean; resolve(): void }>();

  const failureOf = (error: unknown): Failure =>
    error instanceof ConnectFailure
      ? error.failure
      : { message: (error as Error)?.message ?? String(error), pid: 0, exitCode: null, signal: null };

  const refusal = (why: 'failed' | 'unreachable' | 'stopping'): AppError => {
    if (why === 'stopping') return new AppError('unavailable', 'the satellite is shutting down');
    if (why === 'failed') {
      return new AppError(
        'unavailable',
        `MCP server "${serverName}" permanently failed after ${policy.maxRestarts} restarts: ${state.lastError ?? ''}`,
        { instructions: 'Its process crashed after every restart attempt; restart the installation once it is fixed.' },
      );
    }
    const reason = unavailableReasonOf(state, policy);
    return new AppError('unavailable', `MCP server "${serverName}" is offline${reason ? ` (${reason})` : ''}`, {
      instructions: 'The satellite keeps trying to reconnect; call again later.',
    });
  };

  let dispatching = false;
  const queue: LifecycleEvent[] = [];
  const dispatch = (event: LifecycleEvent) => {
    queue.push(event);
    if (dispatching) return;
    dispatching = true;
    try {
      for (let next = queue.shift(); next; next = queue.shift()) {
        const transition = nextLifecycleState(state, next, policy);
        state = transition.state;
        for (const effect of transition.effects) run(effect);
      }
    } finally {
      dispatching = false;
    }
    for (const watcher of [...watchers]) {
      if (watcher.done(state)) {
        watchers.delete(watcher);
        watcher.resolve();
      }
    }
  };

  const whenState = (done: (s: LifecycleState) => boolean): Promise<void> => {
    if (done(state)) return Promise.resolve();
    return new Promise((resolve) => watchers.add({ done, resolve }));
  };

  const open = (number: number) => {
    const controller = new AbortController();
    opening = { number, controller };
    connector.open(controller.signal).then(
      (connection) => {
        if (opening?.number === number) opening = undefined;
        const entry = { connection, number };
        live = entry;
        connection.onLost((failure) => {
          if (live === entry) dispatch({ type: 'lost', connection: number, at: now(), failure });
        });
        dispatch({
          type: 'opened',
          connection: number,
          at: now(),
          pid: connection.pid,
          toolCount: tools.list().length,
        });
      },
      (error: unknown) => {
        if (opening?.number === number) opening = undefined;
        log.warn({ err: error }, 'could not connect to the MCP server');
        dispatch({ type: 'openFailed', connection: number, at: now(), failure: failureOf(error) });
      },
    );
  };

  const close = () => {
    const current = live;
    if (current) {
      live = undefined;
      current.connection
        .close()
        .catch((error: unknown) => log.warn({ err: error }, 'closing the MCP server failed'))
        .finally(() => dispatch({ type: 'closed', connection: current.number, at: now() }));
    } else if (opening) {
      opening.controller.abort();
    } else {
      const number = state.connection;
      queueMicrotask(() => dispatch({ type: 'closed', connection: number, at: now() }));
    }
  };

  /**
   * Lists the tools of `current` again, unasked, abandoning the listing after the timeout. A failure
   * changes nothing: the last listing (and what the pins hold back of it) stays, the server stays online
   * (whether it answers at all is the health check's and the calls' to find), and the next re-list is
   * armed as usual.
   */
  const relistUnasked = async (current: Live, settings: RelistSettings) => {
    const controller = new AbortController();
    const deadline = scheduler.setTimeout(
      () => controller.abort(new Error(`no tools/list answer within ${settings.timeoutMs} ms`)),
      settings.timeoutMs,
    );
    try {
      await tools.discover(() => current.connection.listTools(controller.signal), { onlyWhenChanged: true });
    } catch (error) {
      if (live === current)
        log.warn({ err: error }, 'the scheduled re-list of the tools failed; the last listing stays');
    } finally {
      scheduler.clearTimeout(deadline);
    }
  };

  /** Arms the next re-list of `current`; it lapses once that connection is no longer the live one. */
  const armRelist = (current: Live) => {
    const settings = options.relist;
    if (!settings || settings.intervalMs <= 0) return;
    scheduler.clearTimeout(relistTimer);
    relistTimer = scheduler.setTimeout(() => {
      relistTimer = undefined;
      if (live !== current) return;
      void relistUnasked(current, settings).then(() => {
        if (live === current) armRelist(current);
      });
    }, relistDelayOf(settings.intervalMs));
  };

  const discover = (blocking: boolean) => {
    const current = live;
    if (!current) return;
    const relist = () => tools.discover(() => current.connection.listTools());
    relist().then(
      async () => {
        await current.connection
          .watchTools(() => {
            if (live === current) void relist().catch((e: unknown) => log.warn({ err: e }, 'rediscovery failed'));
          })
          .catch((e: unknown) => log.warn({ err: e }, 'could not watch the tool list'));
        dispatch({ type: 'discovered', connection: current.number });
        armRelist(current);
      },
      (error: unknown) => {
        if (blocking) {
          dispatch({
            type: 'discoveryFailed',
            connection: current.number,
            at: now(),
            message: (error as Error)?.message ?? String(error),
          });
        } else {
          log.warn({ err: error }, 'tool discovery failed');
        }
      },
    );
  };

  const run = (effect: LifecycleEffect) => {
    switch (effect.type) {
      case 'open':
        return open(effect.connection);
      case 'close':
        return close();
      case 'discard': {
        const current = live;
        live = undefined;
        void current?.connection.close().catch(() => {});
        return;
      }
      case 'discover':
        return discover(effect.blocking);
      case 'wait':
        clearTimeout(retryTimer);
        retryTimer = setTimeout(() => {
          retryTimer = undefined;
          dispatch({ type: 'retryDue', at: now() });
        }, effect.ms);
        retryTimer.unref();
        return;
      case 'cancelWait':
        clearTimeout(retryTimer);
        retryTimer = undefined;
        return;
      case 'status':
        events.emit('mcp.server.status_changed', {
          ...ref,
          status: effect.status,
          previous_status: effect.previous,
          status_message: effect.message?.slice(0, 4000) ?? null,
          reason: effect.reason,
          changed_at: new Date(now()).toISOString(),
        });
        if (effect.status === 'permanently_failed') {
          log.error({ last_error: effect.message }, 'MCP server permanently failed');
        }
        options.onChange();
        return;
      case 'emit':
        events.emit(effect.event.type as SatelliteEventType, { ...ref, ...effect.event.data } as never);
        return;
      case 'release': {
        const connection = live?.connection;
        const released = waiters;
        waiters = [];
        for (const waiter of released) {
          if (connection) waiter.resolve(connection);
          else waiter.reject(refusal('unreachable'));
        }
        return;
      }
      case 'reject': {
        const rejected = waiters;
        waiters = [];
        const error = refusal(effect.why);
        for (const waiter of rejected) waiter.reject(error);
        return;
      }
    }
  };

  /** Past the first attempt of the first start (whatever came of it). */
  const firstAttemptOver = (s: LifecycleState): boolean => {
    const { phase } = s;
    if (phase.name === 'idle') return false;
    if (phase.name === 'starting' || phase.name === 'discovering') return phase.purpose !== 'start';
    return true;
  };

  /** The phase as it is now (read through a call, so no earlier check narrows it). */
  const phaseNow = (): PhaseName => state.phase.name;

  /** The live connection, opening one (or waiting for the one being opened) when needed. */
  const connection = (): Promise<UpstreamConnection> => {
    if (state.phase.name === 'running' && live) return Promise.resolve(live.connection);
    return new Promise((resolve, reject) => {
      waiters.push({ resolve, reject });
      dispatch({ type: 'need', at: now() });
    });
  };

  return {
    config,
    serverName,
    phase: () => state.phase.name,
    pid: () => (live?.connection.pid ? live.connection.pid : undefined),
    status: () => state.status,
    unavailableReason: () => unavailableReasonOf(state, policy),
    /**
     * Starts the server in the background. The promise settles once the first attempt has: online, or
     * failed (to be retried, or for good), or stopped. It never rejects.
     */
    start() {
      dispatch({ type: 'start', at: now() });
      return whenState(firstAttemptOver);
    },
    async callTool(name: string, args: Record<string, unknown>, callOptions: ToolCallOptions = {}) {
      inFlight++;
      lastActivityAt = now();
      const began = performance.now();
      let ok = false;
      try {
        let current = await connection();
        let result: CallToolResult;
        try {
          result = await current.callTool(name, args, callOptions);
        } catch (error) {
          if (!current.neverDelivered(error)) throw error;
          // The call never reached the server (refused, or a session it lost): that connection is done
          // for, and a fresh one gets the call, once.
          if (live?.connection === current) {
            dispatch({ type: 'lost', connection: live.number, at: now(), failure: failureOf(error) });
          }
          current = await connection();
          result = await current.callTool(name, args, callOptions);
        }
        ok = !result.isError;
        return result;
      } finally {
        inFlight--;
        lastActivityAt = now();
        stats.record(performance.now() - began, ok);
      }
    },
    /** Puts the server to sleep when it has been idle long enough; true when it does. */
    checkIdle() {
      if (state.phase.name !== 'running') return false;
      dispatch({ type: 'idleCheck', at: now(), lastActivityAt, busy: inFlight > 0 });
      return phaseNow() === 'sleeping';
    },
    /** A liveness check of the live connection; one that fails is a lost connection. */
    async checkHealth(timeoutMs: number) {
      const current = live;
      if (state.phase.name !== 'running' || !current) return false;
      try {
        await current.connection.checkAlive(timeoutMs);
        return true;
      } catch (error) {
        if (live === current)
          dispatch({ type: 'lost', connection: current.number, at: now(), failure: failureOf(error) });
        return false;
      }
    },
    /** Connects now if it can (a call is about to be refused otherwise); true when the server is there. */
    async recover() {
      try {
        await connection();
        return true;
      } catch {
        return false;
      }
    },
    async stop() {
      dispatch({ type: 'stop' });
      await whenState((s) => s.phase.name === 'stopped');
      clearTimeout(retryTimer);
      scheduler.clearTimeout(relistTimer);
      connector.dispose();
    },
    snapshot(): ServerSnapshot {
      const { phase } = state;
      const connected = phase.name === 'running' || phase.name === 'discovering' ? phase : undefined;
      return {
        installation_id: config.installation_id,
        server_name: serverName,
        server_slug: config.server_slug,
        team_id: config.team_id,
        transport: connector.transport,
        status: state.status,
        state: phase.name,
        health: healthOf(state),
        process_id: live?.connection.pid ? live.connection.pid : null,
        tool_count: tools.list().length,
        crash_count: policy.kind === 'process' ? state.crashes : 0,
        uptime_seconds: connected ? (now() - connected.since) / 1000 : null,
        usage: live?.connection.usage() ?? null,
        requests: stats.snapshot(),
        protocol_version: live?.connection.protocolVersion() ?? null,
        status_reason: unavailableReasonOf(state, policy),
      };
    },
  };
}
