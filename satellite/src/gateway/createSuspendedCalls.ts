import { randomBytes } from 'node:crypto';
import {
  type CallToolResult,
  type InputRequest,
  type InputRequiredResult,
  inputRequired,
  ProtocolError,
  ProtocolErrorCode,
} from '@modelcontextprotocol/server';
import type { ToolCallOptions } from '../runtime/managedServer.ts';
import type { CallRouting } from './createCallRouting.ts';

type ServerRequest = Parameters<NonNullable<ToolCallOptions['onServerRequest']>>[0];
type Progress = Parameters<NonNullable<ToolCallOptions['onProgress']>>[0];

/** A request the upstream server made during the call, waiting for the client's answer. */
type Question = {
  request: ServerRequest;
  answer(result: Record<string, unknown>): void;
  refuse(error: Error): void;
};

type SuspendedCall = {
  /** Given when the call first waits for input: most calls never do, and never need one. */
  id: string | undefined;
  /** Whose call it is: a retry presented by another identity finds nothing. */
  ownerKey: string;
  toolPath: string;
  controller: AbortController;
  outcome: Promise<CallToolResult>;
  questions: Map<string, Question>;
  nextKey: number;
  /** Wakes the round that is waiting, when the server asks something. */
  wake: (() => void) | null;
  /** Where the server's progress goes: the current round's client request, if it asked for progress. */
  progress: ((progress: Progress) => void) | undefined;
  expiry: NodeJS.Timeout | undefined;
};

export type RoundContext = {
  /** The current client request's cancellation (the client closed its stream). */
  signal: AbortSignal;
  onProgress: ((progress: Progress) => void) | undefined;
};

/**
 * Server-initiated requests for 2026-07-28 clients, which have no server-to-client request channel:
 * when the upstream server asks for elicitation, sampling or roots during a call, the client gets
 * an input-required result (the server's requests, embedded) and the upstream call waits here; the
 * client's retry carrying `inputResponses` and the echoed `requestState` answers those requests and
 * the same upstream call goes on. A call can take any number of such rounds.
 *
 * The waiting call lives in this process (its upstream request is in flight here): its `requestState`
 * is signed by `routing` and names this process and its address, so a retry that a load balancer sends
 * to another replica is forwarded here (createReplicaForwarder), and one that cannot be is refused
 * saying why instead of starting a fresh call. A client that does not retry within `answerTimeoutMs`
 * has its upstream call cancelled and the server's questions refused. The call id inside the state is a
 * random 192-bit id, and the state is signed: a tampered or forged state finds nothing and is refused.
 */
export function createSuspendedCalls(options: { answerTimeoutMs: number; routing: CallRouting }) {
  const { routing } = options;
  /** Every call in progress, and (by id) those that have waited for input at least once. */
  const calls = new Set<SuspendedCall>();
  const waiting = new Map<string, SuspendedCall>();

  const forget = (call: SuspendedCall) => {
    clearTimeout(call.expiry);
    calls.delete(call);
    if (call.id !== undefined) waiting.delete(call.id);
  };

  const expire = (call: SuspendedCall) => {
    forget(call);
    const reason = new Error(
      `the MCP client did not answer the server's request within ${Math.round(options.answerTimeoutMs / 1000)} s`,
    );
    for (const question of call.questions.values()) question.refuse(reason);
    call.questions.clear();
    call.controller.abort(reason);
  };

  const ask = (call: SuspendedCall, request: ServerRequest) =>
    new Promise<Record<string, unknown>>((answer, refuse) => {
      call.questions.set(`input_${call.nextKey++}`, { request, answer, refuse });
      call.wake?.();
    });

  /** Runs the call until it completes or the server asks the client something. */
  const round = async (call: SuspendedCall, context: RoundContext): Promise<CallToolResult | InputRequiredResult> => {
    clearTimeout(call.expiry);
    call.progress = context.onProgress;
    const cancel = () => call.controller.abort(context.signal.reason);
    if (context.signal.aborted) cancel();
    context.signal.addEventListener('abort', cancel, { once: true });
    try {
      const asked = new Promise<'asked'>((resolve) => {
        // Requests the server sends together go to the client in one round.
        const settle = () => setImmediate(() => resolve('asked'));
        if (call.questions.size > 0) settle();
        else call.wake = settle;
      });
      const outcome = await Promise.race([call.outcome, asked]);
      if (outcome !== 'asked') {
        forget(call);
        return outcome;
      }
      if (call.id === undefined) {
        call.id = randomBytes(24).toString('base64url');
        waiting.set(call.id, call);
      }
      call.expiry = setTimeout(() => expire(call), options.answerTimeoutMs).unref();
      const inputRequests: Record<string, InputRequest> = {};
      for (const [key, question] of call.questions) {
        inputRequests[key] = { method: question.request.method, params: question.request.params ?? {} } as InputRequest;
      }
      return inputRequired({ inputRequests, requestState: await routing.mint(call.id) });
    } catch (error) {
      forget(call);
      throw error;
    } finally {
      context.signal.removeEventListener('abort', cancel);
      call.wake = null;
      call.progress = undefined;
    }
  };

  return {
    size: () => calls.size,
    /**
     * Starts a call: `run` receives the call options to hand the runtime (its cancellation, the
     * progress of whichever round is current, and the relay of server requests), and the first
     * round is played at once.
     */
    start(
      owner: { ownerKey: string; toolPath: string },
      run: (
        callOptions: Required<Pick<ToolCallOptions, 'signal' | 'onProgress' | 'onServerRequest'>>,
      ) => Promise<CallToolResult>,
      context: RoundContext,
    ): Promise<CallToolResult | InputRequiredResult> {
      const call: SuspendedCall = {
        id: undefined,
        ownerKey: owner.ownerKey,
        toolPath: owner.toolPath,
        controller: new AbortController(),
        outcome: Promise.resolve({ content: [] }),
        questions: new Map(),
        nextKey: 1,
        wake: null,
        progress: undefined,
        expiry: undefined,
      };
      calls.add(call);
      call.outcome = run({
        signal: call.controller.signal,
        onProgress: (progress) => call.progress?.(progress),
        onServerRequest: (request) => ask(call, request),
      });
      // A call that fails while nobody waits for it is collected by the next round or the expiry.
      call.outcome.catch(() => {});
      return round(call, context);
    },
    /**
     * A retry: the client's answers go to the server's waiting requests (unknown keys are ignored,
     * missing ones are asked again), then the call goes on.
     */
    async resume(
      requestState: string,
      owner: { ownerKey: string; toolPath: string },
      inputResponses: Record<string, unknown> | undefined,
      context: RoundContext,
    ): Promise<CallToolResult | InputRequiredResult> {
      const route = await routing.read(requestState);
      if (route && !routing.isLocal(route)) {
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          route.replica
            ? `This requestState belongs to a call waiting on another satellite replica (${route.replica}), which could not be reached from here. Call execute_mcp_tool again without requestState.`
            : 'This requestState belongs to a call waiting on another satellite replica, which has no SATELLITE_REPLICA_URL to forward the retry to. Call execute_mcp_tool again without requestState (the operator can set SATELLITE_REPLICA_URL on every replica, or give clients affinity).',
        );
      }
      const call = route ? waiting.get(route.callId) : undefined;
      if (!call || call.ownerKey !== owner.ownerKey) {
        const hint = routing.shared
          ? ''
          : " (Replicas of one satellite recognise each other's requestState only when they share SATELLITE_REPLICA_SECRET.)";
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `Unknown or expired requestState: no call of yours is waiting for input under it. Call execute_mcp_tool again without requestState.${hint}`,
        );
      }
      if (call.toolPath !== owner.toolPath) {
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `This requestState belongs to a call of "${call.toolPath}", not "${owner.toolPath}": retry with the same arguments.`,
        );
      }
      for (const [key, question] of call.questions) {
        const answer = inputResponses?.[key];
        if (answer === null || typeof answer !== 'object' || Array.isArray(answer)) continue;
        call.questions.delete(key);
        question.answer(answer as Record<string, unknown>);
      }
      return round(call, context);
    },
    /** Shutdown: every waiting call is cancelled. */
    closeAll(): void {
      for (const call of [...calls]) expire(call);
    },
  };
}

export type SuspendedCalls = ReturnType<typeof createSuspendedCalls>;
