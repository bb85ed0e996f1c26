import { describe, expect, it } from 'vitest';
import type { CachedTool, ServerRuntime } from '../src/runtime/createServerRuntime.ts';
import type { ToolCallOptions } from '../src/runtime/managedServer.ts';
import { createRuntimeHarness } from './createRuntimeHarness.ts';
import { fixtureModernServer, httpServer, stdioServer, textOf, waitUntil } from './helpers.ts';

const harness = createRuntimeHarness();

type Progress = Parameters<NonNullable<ToolCallOptions['onProgress']>>[0];

/** The three kinds of server the calls below run against: 2025 stdio, 2026 stdio, 2026 HTTP. */
async function threeGenerations(settings: Parameters<typeof harness.start>[1] = {}) {
  const port = await harness.serve('modern');
  const rt = harness.start(
    [stdioServer('legacy'), stdioServer('modern', { args: [fixtureModernServer] }), httpServer('web', port)],
    settings,
  );
  await rt.start();
  return rt;
}
const generations = ['legacy', 'modern', 'web'] as const;

/** How many slow tasks the server stopped on cancellation, once it has stopped one (the server's next step). */
async function eventuallyCancelled(rt: ServerRuntime, server: string): Promise<number> {
  let stopped = 0;
  await waitUntil(
    () => stopped > 0,
    10000,
    `${server} to stop the cancelled task`,
    async () => {
      stopped = Number(textOf(await rt.callTool(harness.found(`${server}:cancelled_count`), {})));
    },
  );
  return stopped;
}

describe('progress and cancellation', () => {
  it('hands every progress notification of the call to its caller, for each generation', async () => {
    const rt = await threeGenerations();
    for (const server of generations) {
      const seen: Progress[] = [];
      const result = await rt.callTool(
        harness.found(`${server}:slow_task`),
        { steps: 3, delay_ms: 5 },
        { onProgress: (p) => seen.push(p) },
      );
      expect(textOf(result)).toBe('done after 3 steps');
      expect(seen, server).toEqual([1, 2, 3].map((step) => ({ progress: step, total: 3, message: `step ${step}` })));
    }
  });

  it('cancels the upstream request when the caller aborts, and the server stops its work', async () => {
    const rt = await threeGenerations();
    for (const server of generations) {
      const controller = new AbortController();
      const result = await rt.callTool(
        harness.found(`${server}:slow_task`),
        { steps: 200, delay_ms: 20 },
        { signal: controller.signal, onProgress: (p) => p.progress === 2 && controller.abort() },
      );
      expect(result).toEqual({
        content: [{ type: 'text', text: 'The call of tool "slow_task" was cancelled by the client.' }],
        isError: true,
      });
      expect(await eventuallyCancelled(rt, server), `${server} saw the cancellation`).toBe(1);
    }
  });
});

describe('time limits', () => {
  it('lets a call run past the per-call limit while it reports progress', async () => {
    const rt = await threeGenerations({ connection: { requestTimeoutMs: 1500 } });
    const results = await Promise.all(
      generations.map((server) => rt.callTool(harness.found(`${server}:slow_task`), { steps: 8, delay_ms: 400 })),
    );
    expect(results.map(textOf)).toEqual(generations.map(() => 'done after 8 steps'));
  });

  it('answers a silent call with a tool error naming the per-call limit, and cancels it upstream', async () => {
    const rt = harness.start([stdioServer('legacy')], { connection: { requestTimeoutMs: 300 } });
    await rt.start();
    const result = await rt.callTool(harness.found('legacy:slow_task'), { steps: 1, delay_ms: 1500 });
    expect(result).toEqual({
      content: [
        {
          type: 'text',
          text: 'Tool "slow_task" on MCP server "legacy" sent neither a result nor progress for 0.3 s (the per-call limit, MCP_REQUEST_TIMEOUT_MS); the satellite cancelled it.',
        },
      ],
      isError: true,
    });
    expect(await eventuallyCancelled(rt, 'legacy')).toBe(1);
  });

  it('stops a call at the overall ceiling even while it reports progress', async () => {
    const rt = harness.start([stdioServer('legacy')], {
      connection: { requestTimeoutMs: 5000, requestMaxTotalMs: 800 },
    });
    await rt.start();
    const seen: Progress[] = [];
    const result = await rt.callTool(
      harness.found('legacy:slow_task'),
      { steps: 50, delay_ms: 100 },
      { onProgress: (p) => seen.push(p) },
    );
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(
      'Tool "slow_task" on MCP server "legacy" ran for 0.8 s, the longest a call may run (MCP_REQUEST_MAX_TOTAL_MS); the satellite cancelled it.',
    );
    expect(seen.length).toBeGreaterThan(0);
  });
});

describe('requests from the server during a call', () => {
  const answers: Record<string, Record<string, unknown>> = {
    'elicitation/create': { action: 'accept', content: { city: 'Lisbon' } },
    'sampling/createMessage': { model: 'client-model', role: 'assistant', content: { type: 'text', text: 'hello' } },
    'roots/list': { roots: [{ uri: 'file:///work', name: 'work' }] },
  };
  const kinds = { elicitation: 'elicitation/create', sampling: 'sampling/createMessage', roots: 'roots/list' };
  /**
   * Calls `tool` to make a `kind` request, for a caller that answers every request with `answers`: the
   * methods that reached that caller, and the call's text.
   */
  const callAnswering = async (rt: ServerRuntime, tool: CachedTool, kind: keyof typeof kinds) => {
    const asked: string[] = [];
    const result = await rt.callTool(
      tool,
      { kind },
      {
        onServerRequest: async (request) => {
          asked.push(request.method);
          return answers[request.method] as Record<string, unknown>;
        },
      },
    );
    return { asked, text: textOf(result) };
  };

  it('relays elicitation, sampling and roots to the caller and returns its answer upstream, in both generations', async () => {
    const rt = await threeGenerations();
    for (const server of generations) {
      for (const [kind, method] of Object.entries(kinds)) {
        // Over a 2025 stdio connection nothing ties a request to its call: roots are not given there (below).
        if (server === 'legacy' && kind === 'roots') continue;
        const asked: { method: string; params: Record<string, unknown> | undefined }[] = [];
        const result = await rt.callTool(
          harness.found(`${server === 'web' ? 'web' : server}:ask_client`),
          { kind },
          {
            onServerRequest: async (request) => {
              asked.push(request);
              return answers[request.method] as Record<string, unknown>;
            },
          },
        );
        expect(
          asked.map((a) => a.method),
          `${server} ${kind}`,
        ).toEqual([method]);
        if (kind === 'elicitation') expect(asked[0]?.params).toMatchObject({ message: 'Which city?' });
        expect(JSON.parse(textOf(result)), `${server} ${kind}`).toMatchObject(answers[method] as object);
      }
    }
  });

  it('refuses them clearly when the caller cannot answer', async () => {
    const rt = await threeGenerations();
    const legacy = await rt.callTool(harness.found('legacy:ask_client'), { kind: 'sampling' });
    expect(textOf(legacy)).toBe(
      'the client refused: MCP error -32601: the client that made this call did not declare sampling',
    );
    const modern = await rt.callTool(harness.found('modern:ask_client'), { kind: 'elicitation' });
    expect(modern).toEqual({
      content: [
        {
          type: 'text',
          text: 'Tool "ask_client" on MCP server "modern" needed input during the call that could not be given: the client that made this call did not declare elicitation',
        },
      ],
      isError: true,
    });
    // The caller's own refusal travels upstream with its code and message.
    const declined = await rt.callTool(
      harness.found('legacy:ask_client'),
      { kind: 'sampling' },
      { onServerRequest: () => Promise.reject({ code: -32000, message: 'no model for you' }) },
    );
    expect(textOf(declined)).toBe('the client refused: MCP error -32000: no model for you');
  });

  it('gives roots over a 2025 stdio connection to no one, even with one call in flight: the list is empty', async () => {
    const rt = harness.start([stdioServer('legacy')]);
    await rt.start();
    const { asked, text } = await callAnswering(rt, harness.found('legacy:ask_client'), 'roots');
    expect(asked).toEqual([]);
    expect(text).toBe('{"roots":[]}');
  });

  it('never hands a request to the wrong caller: over stdio with two calls in flight it is refused', async () => {
    const rt = harness.start([stdioServer('legacy')]);
    await rt.start();
    const busy = rt.callTool(harness.found('legacy:slow_task'), { steps: 10, delay_ms: 30 });
    const { asked, text } = await callAnswering(rt, harness.found('legacy:ask_client'), 'elicitation');
    expect(asked).toEqual([]);
    expect(text).toBe(
      'the client refused: MCP error -32603: the satellite cannot tell which of 2 calls in flight this elicitation/create request belongs to (more than one of them is not waiting for an answer of its client), so it refuses rather than ask the wrong client',
    );
    expect(textOf(await busy)).toBe('done after 10 steps');
  });

  it("lets a call whose client leaves a request unanswered block no other call: the next request is the other call's", async () => {
    const rt = harness.start([stdioServer('legacy')]);
    await rt.start();
    const tool = harness.found('legacy:ask_client');
    let askedFirst: () => void = () => {};
    const firstAsked = new Promise<void>((resolve) => {
      askedFirst = resolve;
    });
    let answerFirst: (value: Record<string, unknown>) => void = () => {};
    // The first caller is asked, and does not answer (yet).
    const first = rt.callTool(
      tool,
      { kind: 'elicitation' },
      {
        onServerRequest: () =>
          new Promise((resolve) => {
            answerFirst = resolve;
            askedFirst();
          }),
      },
    );
    await firstAsked;
    const second = await callAnswering(rt, tool, 'elicitation');
    expect(second.asked).toEqual(['elicitation/create']);
    expect(JSON.parse(second.text)).toMatchObject(answers['elicitation/create'] as object);
    answerFirst({ action: 'accept', content: { city: 'Lyon' } });
    expect(JSON.parse(textOf(await first))).toMatchObject({ action: 'accept', content: { city: 'Lyon' } });
  });

  it('routes each request to its own caller over Streamable HTTP, however many calls are in flight', async () => {
    const { rt } = await harness.startRemote('http', (at) => httpServer('remote', at));
    const cities = ['Lisbon', 'Oslo', 'Quito', 'Hanoi'];
    const results = await Promise.all(
      cities.map((city, i) =>
        rt.callTool(
          harness.found('remote:ask_city'),
          { delay_ms: 20 * (cities.length - i) },
          { onServerRequest: async () => ({ action: 'accept', content: { city } }) },
        ),
      ),
    );
    expect(results.map(textOf)).toEqual(cities);
  });
});
