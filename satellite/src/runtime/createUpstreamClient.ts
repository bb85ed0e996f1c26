import { AsyncLocalStorage } from 'node:async_hooks';
import {
  type CallToolResult,
  Client,
  isInputRequiredResult,
  type PriorDiscovery,
  type ProtocolEra,
  ProtocolError,
  type Tool,
  type Transport,
} from '@modelcontextprotocol/client';
import { upstreamProtocolVersions } from '../sdkAdaptation/protocolVersions.ts';
import { withCallToolValidator } from '../sdkAdaptation/withCallToolValidator.ts';
import type { ToolCallOptions } from './managedServer.ts';
import { messageTooLargeIn } from './messageTooLargeError.ts';

export type UpstreamLimits = {
  /** Without an answer or progress for this long a call is cancelled; progress restarts it. */
  requestTimeoutMs: number;
  /** No call runs longer than this, progress or not. */
  maxTotalMs: number;
};

/** How a server's generation was settled: the `connect()` verdict, to be reused on the next connection. */
export type GenerationVerdict = PriorDiscovery;

/** The requests a server may make of its client during a call, and the capability each needs. */
const serverRequestCapability = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
} as const;
type ServerRequestMethod = keyof typeof serverRequestCapability;

/** More input rounds than this in one call is a server looping, not a conversation. */
const maxInputRounds = 10;

type CallInFlight = {
  onServerRequest: ToolCallOptions['onServerRequest'];
  /** Stops the per-call timer while the client is being asked something (a person may be answering). */
  pause(): void;
  resume(): void;
  /** Whether its client is being asked something now. */
  asking(): boolean;
};

/**
 * The call a server request belongs to, where the transport carries it in the call's own async context
 * (a Streamable HTTP POST whose response stream the request arrived on). Connections are opened outside
 * any call (`callScope.exit`), so a shared stream never inherits one call's context.
 */
const callScope = new AsyncLocalStorage<CallInFlight>();

/** Runs `work` outside any call's context: streams and processes it creates belong to no call. */
export function outsideCall<T>(work: () => T): T {
  return callScope.exit(work);
}

/** A tool error the calling agent reads and acts on (never a protocol error it cannot see). */
export function toolError(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

/**
 * One connection's MCP client on the SDK's v2 line, shared by stdio and remote servers: it settles the
 * server's generation (2026-07-28 or a 2025 revision), declares elicitation, sampling and roots, and
 * runs tool calls with the satellite's limits. Each call's progress is handed to its caller, a client
 * cancellation cancels the request upstream, and what the server asks during a call (a server request
 * on a 2025 connection, an `input_required` result on a 2026 one) goes to the `onServerRequest` of the
 * call it belongs to. A request that cannot be attributed to exactly one call is refused, never guessed.
 */
export function createUpstreamClient(options: { serverName: string; limits: UpstreamLimits }) {
  const { serverName, limits } = options;
  const client = withCallToolValidator(
    new Client(
      { name: 'orbital-satellite', version: '0.1.0' },
      {
        capabilities: { elicitation: { form: {}, url: {} }, sampling: {}, roots: {} },
        versionNegotiation: { mode: 'auto' },
        supportedProtocolVersions: [...upstreamProtocolVersions],
        // Input rounds are driven here, per call, so each request reaches the client that made the call.
        inputRequired: { autoFulfill: false },
        listMaxPages: 100,
      },
    ),
  );
  const calls = new Set<CallInFlight>();

  /** Hands one server request to the call it belongs to and returns the client's answer. */
  const answer = async (
    call: CallInFlight | undefined,
    method: ServerRequestMethod,
    params: Record<string, unknown> | undefined,
  ): Promise<Record<string, unknown>> => {
    if (!call) {
      throw new ProtocolError(
        -32603,
        calls.size === 0
          ? `the satellite cannot answer ${method} outside a tool call: it relays such requests to the client that made the call`
          : `the satellite cannot tell which of ${calls.size} calls in flight this ${method} request belongs to (more than one of them is not waiting for an answer of its client), so it refuses rather than ask the wrong client`,
      );
    }
    if (!call.onServerRequest) {
      throw new ProtocolError(
        -32601,
        `the client that made this call did not declare ${serverRequestCapability[method]}`,
      );
    }
    call.pause();
    try {
      return await call.onServerRequest({ method, params });
    } catch (error) {
      if (error instanceof ProtocolError) throw error;
      const { code, message, data } = error as { code?: unknown; message?: unknown; data?: unknown };
      throw new ProtocolError(
        typeof code === 'number' ? code : -32603,
        typeof message === 'string' ? message : 'the client could not answer',
        data,
      );
    } finally {
      call.resume();
    }
  };

  /**
   * The call a 2025-era server request belongs to: the one whose context it arrived in (certain), or
   * else the only call in flight that is not waiting for its client's answer to an earlier request. A
   * tool handler waits for one answer before it asks the next thing (the SDKs' handlers `await` each
   * request), so a call whose client is still deciding (a 2026-07-28 client that left an
   * `input_required` unanswered, a person filling in a form) asks nothing meanwhile, and never makes
   * another call's request ambiguous. Roots are given only with certainty: servers often ask for them
   * outside any call (right after `initialize`, after a change) and apply them to the whole process,
   * so one client's roots must not reach a server every client shares by coincidence of timing.
   */
  const attribute = (method: ServerRequestMethod): CallInFlight | undefined => {
    const scoped = callScope.getStore();
    if (scoped && calls.has(scoped)) return scoped;
    if (method === 'roots/list') return undefined;
    if (calls.size === 1) return calls.values().next().value;
    let candidate: CallInFlight | undefined;
    for (const call of calls) {
      if (call.asking()) continue;
      if (candidate) return undefined;
      candidate = call;
    }
    return candidate;
  };

  for (const method of Object.keys(serverRequestCapability) as ServerRequestMethod[]) {
    client.setRequestHandler(method, async (request) => {
      const params = request.params as Record<string, unknown> | undefined;
      const call = attribute(method);
      // Servers ask for roots outside any call (Everything does right after initialize). The satellite
      // shares no client's roots with a server every client shares, so it says there are none, a true
      // answer, rather than an error the server logs as its own failure.
      if (!call && method === 'roots/list') return { roots: [] } as never;
      // The SDK checks the answer against the method's result schema before it goes upstream.
      return (await answer(call, method, params)) as never;
    });
  }

  const callTool = async (
    name: string,
    args: Record<string, unknown>,
    callOptions: ToolCallOptions = {},
  ): Promise<CallToolResult> => {
    const controller = new AbortController();
    let stopped: 'request_timeout' | 'total_timeout' | 'cancelled' | undefined;
    const stop = (why: NonNullable<typeof stopped>) => {
      if (stopped) return;
      stopped = why;
      controller.abort(new Error(why));
    };
    let idleTimer: NodeJS.Timeout | undefined;
    let paused = 0;
    const armIdle = () => {
      clearTimeout(idleTimer);
      if (paused === 0) idleTimer = setTimeout(() => stop('request_timeout'), limits.requestTimeoutMs);
    };
    const totalTimer = setTimeout(() => stop('total_timeout'), limits.maxTotalMs);
    const onClientAbort = () => stop('cancelled');
    if (callOptions.signal?.aborted) onClientAbort();
    callOptions.signal?.addEventListener('abort', onClientAbort, { once: true });

    const call: CallInFlight = {
      onServerRequest: callOptions.onServerRequest,
      pause() {
        paused++;
        clearTimeout(idleTimer);
      },
      resume() {
        paused--;
        armIdle();
      },
      asking: () => paused > 0,
    };
    calls.add(call);
    armIdle();
    const requestOptions = {
      signal: controller.signal,
      // The limits above decide; the SDK's own timer only backs them up.
      timeout: limits.maxTotalMs + 60_000,
      // Always asked for: progress is what keeps a long call alive.
      onprogress: (progress: { progress: number; total?: number; message?: string }) => {
        armIdle();
        callOptions.onProgress?.({
          progress: progress.progress,
          ...(progress.total !== undefined ? { total: progress.total } : {}),
          ...(progress.message !== undefined ? { message: progress.message } : {}),
        });
      },
      allowInputRequired: true,
    };
    try {
      if (stopped) throw controller.signal.reason;
      let params: Record<string, unknown> = { name, arguments: args };
      for (let round = 0; ; round++) {
        const result = await callScope.run(call, () =>
          client.callTool(params as { name: string; arguments: Record<string, unknown> }, requestOptions),
        );
        if (!isInputRequiredResult(result)) return result as CallToolResult;
        if (round >= maxInputRounds) {
          return toolError(
            `Tool "${name}" on MCP server "${serverName}" still needed input after ${maxInputRounds} rounds; the satellite stopped it.`,
          );
        }
        // A 2026-07-28 server asks through its result; each embedded request goes to this call's client.
        const requests = Object.entries(result.inputRequests ?? {});
        const responses: Record<string, unknown> = {};
        try {
          await Promise.all(
            requests.map(async ([key, entry]) => {
              const embedded = entry as { method?: unknown; params?: unknown };
              const method = embedded.method as ServerRequestMethod;
              if (!(method in serverRequestCapability)) {
                throw new ProtocolError(-32601, `the server asked for an unknown kind of input: ${String(method)}`);
              }
              responses[key] = await answer(call, method, embedded.params as Record<string, unknown> | undefined);
            }),
          );
        } catch (error) {
          if (stopped) throw error;
          return toolError(
            `Tool "${name}" on MCP server "${serverName}" needed input during the call that could not be given: ${(error as Error).message}`,
          );
        }
        params = {
          name,
          arguments: args,
          ...(requests.length ? { inputResponses: responses } : {}),
          ...(result.requestState !== undefined ? { requestState: result.requestState } : {}),
        };
      }
    } catch (error) {
      switch (stopped) {
        case 'request_timeout':
          return toolError(
            `Tool "${name}" on MCP server "${serverName}" sent neither a result nor progress for ${seconds(limits.requestTimeoutMs)} (the per-call limit, MCP_REQUEST_TIMEOUT_MS); the satellite cancelled it.`,
          );
        case 'total_timeout':
          return toolError(
            `Tool "${name}" on MCP server "${serverName}" ran for ${seconds(limits.maxTotalMs)}, the longest a call may run (MCP_REQUEST_MAX_TOTAL_MS); the satellite cancelled it.`,
          );
        case 'cancelled':
          return toolError(`The call of tool "${name}" was cancelled by the client.`);
      }
      const tooLarge = messageTooLargeIn(error);
      if (tooLarge) return toolError(`Tool "${name}" on MCP server "${serverName}" failed: ${tooLarge}.`);
      throw error;
    } finally {
      clearTimeout(idleTimer);
      clearTimeout(totalTimer);
      callOptions.signal?.removeEventListener('abort', onClientAbort);
      calls.delete(call);
    }
  };

  return {
    client,
    /**
     * Connects and settles the generation: with `prior` as a previous connection found it (no probe), or
     * by probing `server/discover` and falling back to `initialize`. Returns the verdict to keep. A failure
     * says nothing about the generation when the server could not be reached (`isServerUnreachable`).
     */
    async connect(transport: Transport, connectOptions: { timeoutMs: number; prior?: GenerationVerdict | undefined }) {
      await outsideCall(async () => {
        await client.connect(transport, {
          timeout: connectOptions.timeoutMs,
          ...(connectOptions.prior ? { prior: connectOptions.prior } : {}),
        });
        // Adopting a 2026 verdict sends nothing: one server/discover proves the server is there and
        // still speaks 2026-07-28 (and refreshes what it offers) before the connection counts as made.
        if (connectOptions.prior?.kind === 'modern') await client.discover({ timeout: connectOptions.timeoutMs });
      });
      const discover = client.getDiscoverResult();
      const verdict: GenerationVerdict = discover ? { kind: 'modern', discover } : { kind: 'legacy' };
      return verdict;
    },
    era: (): ProtocolEra | undefined => client.getProtocolEra(),
    protocolVersion: (): string | undefined => client.getNegotiatedProtocolVersion(),
    async listTools(signal?: AbortSignal): Promise<Tool[]> {
      return (await client.listTools(undefined, { cacheMode: 'refresh', ...(signal ? { signal } : {}) })).tools;
    },
    /**
     * Calls `onChange` when the server says its tools changed: an unsolicited notification on a 2025
     * connection, a `subscriptions/listen` stream on a 2026 one (opened only when the server offers it).
     */
    async watchTools(onChange: () => void): Promise<void> {
      client.setNotificationHandler('notifications/tools/list_changed', () => onChange());
      if (client.getProtocolEra() === 'modern' && client.getServerCapabilities()?.tools?.listChanged) {
        await outsideCall(() => client.listen({ toolsListChanged: true }));
      }
    },
    callTool,
    /** A liveness check: `ping` on a 2025 connection, `server/discover` on a 2026 one (which has no ping). */
    async checkAlive(timeoutMs: number): Promise<void> {
      if (client.getProtocolEra() === 'modern') await client.discover({ timeout: timeoutMs });
      else await client.ping({ timeout: timeoutMs });
    },
    inFlight: () => calls.size,
    close: () => client.close(),
  };
}

export type UpstreamClient = ReturnType<typeof createUpstreamClient>;
