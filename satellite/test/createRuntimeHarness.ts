import type { ChildProcess } from 'node:child_process';
import type { ServerConfiguration } from '@orbital/contracts';
import { afterEach, expect } from 'vitest';
import type { Scheduler } from '../src/backend/scheduler.ts';
import { createRecordingEventSink, type RecordingEventSink } from '../src/events/createRecordingEventSink.ts';
import { createServerRuntime, type ServerRuntime } from '../src/runtime/createServerRuntime.ts';
import type { UpstreamTokens } from '../src/runtime/upstreamTokens.ts';
import {
  freePort,
  type SettingsOverrides,
  silentLogger,
  startHttpFixture,
  startModernHttpFixture,
  startSseFixture,
  stopChild,
  withSettings,
} from './helpers.ts';

/** The fixture servers a test can run beside the runtime: 2025 Streamable HTTP, 2026-07-28 HTTP, SSE. */
const fixtureStarters = { http: startHttpFixture, modern: startModernHttpFixture, sse: startSseFixture } as const;
type FixtureKind = keyof typeof fixtureStarters;

/**
 * A runtime over real processes for one test at a time: `start` builds it with the test settings,
 * `found` looks a tool up (failing loudly when it is not callable), and after each test the runtime
 * and every fixture process the test started (`serve`) are stopped, and no event may have failed its schema.
 * Call it at the top of a test file.
 */
export function createRuntimeHarness() {
  let runtime: ServerRuntime | undefined;
  let recorded: RecordingEventSink = createRecordingEventSink();
  const fixtures: ChildProcess[] = [];
  afterEach(async () => {
    await runtime?.stop();
    runtime = undefined;
    for (const child of fixtures.splice(0)) await stopChild(child);
    expect(recorded.invalid.map((i) => i.type)).toEqual([]);
  });
  const start = (
    servers: readonly ServerConfiguration[],
    settings: SettingsOverrides = {},
    now?: () => number,
    upstreamTokens?: UpstreamTokens,
    scheduler?: Scheduler,
  ) => {
    recorded = createRecordingEventSink();
    runtime = createServerRuntime({
      servers,
      events: recorded,
      logger: silentLogger,
      settings: withSettings(settings),
      ...(now ? { now } : {}),
      ...(upstreamTokens ? { upstreamTokens } : {}),
      ...(scheduler ? { scheduler } : {}),
    });
    return runtime;
  };
  /**
   * Starts a fixture server for this test on `port`, or on a free one (a server brought back passes
   * the port it had), and returns the port; `fixtures` lists it in the order started.
   */
  const serve = async (kind: FixtureKind, port?: number): Promise<number> => {
    const on = port ?? (await freePort());
    fixtures.push(await fixtureStarters[kind](on));
    return on;
  };
  return {
    fixtures,
    get events(): RecordingEventSink {
      return recorded;
    },
    start,
    serve,
    /**
     * A started runtime over one remote server, `configure`d for a fixture of `kind` served for it;
     * the fixture's port is the one to serve it on again after `stopFixture`.
     */
    async startRemote(
      kind: FixtureKind,
      configure: (port: number) => ServerConfiguration,
      settings: SettingsOverrides = {},
    ): Promise<{ rt: ServerRuntime; port: number }> {
      const port = await serve(kind);
      const rt = start([configure(port)], settings);
      await rt.start();
      return { rt, port };
    },
    /** Stops the first or last fixture still running, to take its server away while the runtime runs. */
    async stopFixture(which: 'first' | 'last' = 'last') {
      const child = which === 'first' ? fixtures.shift() : fixtures.pop();
      if (!child) throw new Error('no fixture is running');
      await stopChild(child);
    },
    found(path: string) {
      const lookup = runtime?.lookup(path);
      if (lookup?.kind !== 'found') throw new Error(`${path}: ${JSON.stringify(lookup)}`);
      return lookup.tool;
    },
  };
}
