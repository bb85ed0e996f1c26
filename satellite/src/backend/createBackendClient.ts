import type { Scheduler } from './scheduler.ts';

/**
 * What one backend call came to. Callers decide by `kind` and HTTP status, never by message text,
 * which may change. `network` and `timeout` are transient: nothing is concluded from them.
 */
export type BackendResult<T = unknown> =
  | { kind: 'ok'; status: number; data: T }
  | {
      kind: 'http';
      status: number;
      code: string | null;
      message: string;
      /** From the error body: what an operator should do (registration refusals carry it). */
      instructions: string | null;
      /** Retry-After in milliseconds, when the backend sent one. */
      retryAfterMs: number | null;
      /** The raw body, for replies that carry data with an error status (none so far). */
      body: unknown;
    }
  | { kind: 'network'; message: string }
  | { kind: 'timeout' }
  | { kind: 'aborted' };

export type BackendRequest = {
  method: 'GET' | 'POST';
  path: string;
  authorization: string;
  body?: unknown;
  /** Aborts the call from outside (shutdown); reported as `aborted`. */
  signal?: AbortSignal;
  timeoutMs?: number;
};

export type BackendClient = {
  readonly baseUrl: string;
  request<T = unknown>(request: BackendRequest): Promise<BackendResult<T>>;
};

/** gateway-api answers `{success: true, data}` or `{success: false, error: {code, message, instructions?}}`. */
function readEnvelope(body: unknown): {
  data: unknown;
  code: string | null;
  message: string;
  instructions: string | null;
} {
  if (body && typeof body === 'object') {
    const envelope = body as { success?: unknown; data?: unknown; error?: Record<string, unknown> };
    if (envelope.success === true && 'data' in envelope)
      return { data: envelope.data, code: null, message: '', instructions: null };
    const error = envelope.error;
    if (error && typeof error === 'object') {
      return {
        data: body,
        code: typeof error.code === 'string' ? error.code : null,
        message: typeof error.message === 'string' ? error.message : '',
        instructions: typeof error.instructions === 'string' ? error.instructions : null,
      };
    }
  }
  return { data: body, code: null, message: '', instructions: null };
}

function retryAfterMs(header: string | null, now: number): number | null {
  if (!header) return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** The one HTTP client of the backend link: JSON in and out, a timeout on every call, never a throw. */
export function createBackendClient(options: {
  baseUrl: string;
  scheduler: Scheduler;
  timeoutMs: number;
  fetch?: typeof fetch;
}): BackendClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const doFetch = options.fetch ?? fetch;
  return {
    baseUrl,
    async request<T>(request: BackendRequest): Promise<BackendResult<T>> {
      if (request.signal?.aborted) return { kind: 'aborted' };
      const controller = new AbortController();
      let timedOut = false;
      const timer = options.scheduler.setTimeout(() => {
        timedOut = true;
        controller.abort();
      }, request.timeoutMs ?? options.timeoutMs);
      const onAbort = () => controller.abort();
      request.signal?.addEventListener('abort', onAbort, { once: true });
      try {
        const response = await doFetch(`${baseUrl}${request.path}`, {
          method: request.method,
          headers: {
            authorization: request.authorization,
            accept: 'application/json',
            ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
          signal: controller.signal,
        });
        const text = await response.text();
        let body: unknown = null;
        if (text) {
          try {
            body = JSON.parse(text);
          } catch {
            body = text.slice(0, 500);
          }
        }
        const envelope = readEnvelope(body);
        if (response.ok) return { kind: 'ok', status: response.status, data: envelope.data as T };
        return {
          kind: 'http',
          status: response.status,
          code: envelope.code,
          message: envelope.message || `HTTP ${response.status}`,
          instructions: envelope.instructions,
          retryAfterMs: retryAfterMs(response.headers.get('retry-after'), options.scheduler.now()),
          body,
        };
      } catch (error) {
        if (timedOut) return { kind: 'timeout' };
        if (request.signal?.aborted) return { kind: 'aborted' };
        const cause = (error as { cause?: { code?: string; message?: string } }).cause;
        return { kind: 'network', message: cause?.code ?? cause?.message ?? (error as Error).message };
      } finally {
        options.scheduler.clearTimeout(timer);
        request.signal?.removeEventListener('abort', onAbort);
      }
    },
  };
}

/** A short description of a failed result for logs and events (never a header or a body with secrets). */
export function describeFailure(result: Exclude<BackendResult, { kind: 'ok' }>): string {
  switch (result.kind) {
    case 'http':
      return `HTTP ${result.status}${result.code ? ` ${result.code}` : ''}: ${result.message}`;
    case 'network':
      return `backend unreachable (${result.message})`;
    case 'timeout':
      return 'backend did not answer in time';
    case 'aborted':
      return 'request aborted';
  }
}
