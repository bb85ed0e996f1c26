import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/server';
import { exceedsNestingDepth, maxNestingDepth } from '@orbital/nesting-depth';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { BearerAuthenticator } from '../auth/createBearerAuthenticator.ts';
import type { PlainAnswer } from '../sdkAdaptation/plainToolCall.ts';
import { readRequestGeneration } from '../sdkAdaptation/requestGeneration.ts';
import { checkRequestOrigin, type OriginPolicy } from './checkRequestOrigin.ts';
import type { McpEndpoint } from './createMcpEndpoint.ts';
import type { ReplicaForwarder } from './createReplicaForwarder.ts';

/**
 * Resolves once the rest of a refused request's body has arrived and been dropped. Answering before
 * the client has sent it all makes Node close the connection under a client still writing, which
 * then sees a broken pipe (EPIPE) instead of the answer; reading it through costs no more than the
 * request time limit (HTTP_REQUEST_TIMEOUT_MS), which still cuts a client that never stops.
 */
function drained(raw: IncomingMessage): Promise<void> {
  if (raw.complete || raw.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      raw.off('end', done);
      raw.off('close', done);
      raw.off('error', done);
      resolve();
    };
    raw.on('end', done);
    raw.on('close', done);
    raw.on('error', done);
    raw.resume();
  });
}

/**
 * How deep a tool call's `arguments` may nest: the body's limit less the two levels above them (the
 * message and its `params`), so a call whose arguments fit is never refused for its body.
 */
export const maxArgumentDepth = maxNestingDepth - 2;

/** The `arguments` of a `tools/call` request, or undefined for any other body. */
function toolCallArgumentsOf(body: unknown): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const message = body as { method?: unknown; params?: unknown };
  if (message.method !== 'tools/call' || typeof message.params !== 'object' || message.params === null) {
    return undefined;
  }
  return (message.params as { arguments?: unknown }).arguments;
}

/** JSON-RPC error bodies for what is refused before the endpoint sees the request. */
function refuse(reply: FastifyReply, status: number, code: number, message: string) {
  return reply.status(status).type('application/json').send({ jsonrpc: '2.0', error: { code, message }, id: null });
}

/** The web-standard request the endpoint reads: headers and method; the body arrives parsed. */
function webRequestOf(raw: IncomingMessage, signal: AbortSignal): Request {
  const headers = new Headers();
  const pairs = raw.rawHeaders;
  for (let i = 0; i + 1 < pairs.length; i += 2) {
    const name = pairs[i] as string;
    // HTTP/2 pseudo-headers are connection metadata, not fields.
    if (!name.startsWith(':')) headers.append(name, pairs[i + 1] as string);
  }
  return new Request(`http://${raw.headers.host ?? 'localhost'}${raw.url ?? '/mcp'}`, {
    method: raw.method ?? 'GET',
    headers,
    signal,
  });
}

/**
 * How long the head of a POST's event stream may wait for the stream's first event. A relayed call
 * usually answers well within this: its head, its one event and the stream's end then leave in one
 * write (one segment, one wake-up of the client) instead of a head first and the body after. A
 * slower call gets its head when the time is up, so a client waiting for headers is never kept
 * waiting for a long call's result (HTTP clients give up on headers after some minutes).
 */
export const streamHeadDelayMs = 20;

/** The stream's first read, or undefined if it has not come within `ms`. */
async function firstReadWithin<T>(read: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([read, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Writes the endpoint's response: a JSON body in one write, an event stream chunk by chunk with
 * back-pressure, until the stream ends or the client goes away. The head of a GET's stream (the
 * session's notification stream, which may stay silent for long) goes out at once; a POST's waits
 * briefly for its first event (`streamHeadDelayMs`).
 */
async function sendWebResponse(
  response: Response,
  res: ServerResponse,
  gone: AbortSignal,
  method: string,
): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  if (response.body === null) {
    res.writeHead(response.status, headers).end();
    return;
  }
  if (!headers['content-type']?.startsWith('text/event-stream')) {
    const body = Buffer.from(await response.arrayBuffer());
    headers['content-length'] = String(body.length);
    res.writeHead(response.status, headers).end(body);
    return;
  }
  res.writeHead(response.status, headers);
  const reader = response.body.getReader();
  const stop = () => void reader.cancel().catch(() => {});
  gone.addEventListener('abort', stop, { once: true });
  try {
    // Node sends the head with the first chunk written, and a chunk and the end written in the
    // same turn as one write; only a head that must go out before any event is flushed on its own.
    let next: ReturnType<typeof reader.read> | undefined = reader.read();
    if (method !== 'POST' || (await firstReadWithin(next, streamHeadDelayMs)) === undefined) res.flushHeaders();
    for (;;) {
      const { done, value } = await (next ?? reader.read());
      next = undefined;
      if (done || gone.aborted) break;
      if (!res.write(value)) {
        await new Promise<void>((resolve) => {
          const release = () => {
            res.off('drain', release);
            gone.removeEventListener('abort', release);
            resolve();
          };
          res.on('drain', release);
          gone.addEventListener('abort', release, { once: true });
        });
      }
    }
  } catch {
    // The stream was cancelled because the client left; nothing more to write.
  } finally {
    gone.removeEventListener('abort', stop);
    res.end();
  }
}

/**
 * Writes a plain tool call's answer (plainToolCall.ts): in one write when it is ready in time; an
 * event stream whose call is slow sends its head after `streamHeadDelayMs`, as the SDK's streams
 * do here, then a keep-alive comment every `keepAliveMs` until its one event.
 */
async function sendPlainAnswer(
  answer: PlainAnswer,
  res: ServerResponse,
  gone: AbortSignal,
  keepAliveMs: number,
): Promise<void> {
  const ready = answer.stream ? await firstReadWithin(answer.body, streamHeadDelayMs) : await answer.body;
  if (ready === undefined) {
    res.writeHead(answer.status, answer.headers);
    res.flushHeaders();
    const keepAlive = setInterval(() => res.write(': keepalive\n\n'), keepAliveMs);
    try {
      const body = await answer.body;
      res.end(gone.aborted ? undefined : body);
    } finally {
      clearInterval(keepAlive);
    }
    return;
  }
  if (gone.aborted) {
    res.end();
    return;
  }
  const body = Buffer.from(ready);
  res.writeHead(answer.status, { ...answer.headers, 'content-length': String(body.length) }).end(body);
}

/**
 * `/mcp` on Fastify: DNS-rebinding protection and (in oauth mode) the bearer token first, then the
 * endpoint of both protocol generations. Fastify parses the JSON body; a body that is not JSON is a
 * JSON-RPC parse error (-32700, HTTP 400), never Fastify's own error body.
 */
export function registerMcpRoutes(
  app: FastifyInstance,
  deps: {
    endpoint: McpEndpoint;
    /** Retries of calls another replica holds go there. */
    forwarder?: ReplicaForwarder;
    originPolicy: OriginPolicy;
    authenticate?: BearerAuthenticator;
    /** How often a slow call's event stream gets a keep-alive comment. */
    keepAliveMs: number;
    /** The largest request body accepted (MCP_MAX_REQUEST_BYTES); a larger one is 413. */
    maxBodyBytes: number;
  },
): void {
  void app.register(async (scope) => {
    scope.addHook('onRequest', async (request, reply) => {
      const check = checkRequestOrigin(
        { host: request.headers.host, origin: request.headers.origin },
        deps.originPolicy,
      );
      if (!check.ok) return refuse(reply, 403, -32000, `Forbidden: ${check.reason}`);
      if (deps.authenticate) {
        // Every request, stateless or not, carries its token and is checked on its own.
        const auth = await deps.authenticate(request, reply);
        if (!auth) return reply;
        (request.raw as { auth?: AuthInfo }).auth = auth;
      }
    });

    // Checked as soon as the body is parsed and before anything walks it: the SDK's schemas, a relayed
    // call's JSON.stringify and the logs all call themselves per level and overflow past a few thousand.
    scope.addHook('preValidation', async (request, reply) => {
      if (!exceedsNestingDepth(request.body)) return;
      // Where the depth is in a tool call's arguments, the call's arguments are what is wrong.
      const args = toolCallArgumentsOf(request.body);
      if (args !== undefined && exceedsNestingDepth(args, maxArgumentDepth)) {
        return refuse(
          reply,
          400,
          -32602,
          `Invalid params: the tool call's arguments nest deeper than ${maxArgumentDepth} levels`,
        );
      }
      return refuse(reply, 400, -32600, `Invalid Request: the body nests deeper than ${maxNestingDepth} levels`);
    });

    scope.setErrorHandler((error: FastifyError, request, reply) => {
      switch (error.code) {
        case 'FST_ERR_CTP_INVALID_JSON_BODY':
        case 'FST_ERR_CTP_EMPTY_JSON_BODY':
          return refuse(reply, 400, -32700, `Parse error: the request body is not valid JSON (${error.message})`);
        case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
          return refuse(reply, 415, -32000, 'Unsupported Media Type: Content-Type must be application/json');
        case 'FST_ERR_CTP_BODY_TOO_LARGE':
          return drained(request.raw).then(() =>
            refuse(
              reply,
              413,
              -32000,
              `Request body too large: at most ${deps.maxBodyBytes} bytes (MCP_MAX_REQUEST_BYTES)`,
            ),
          );
        default:
          if (error instanceof SyntaxError) {
            return refuse(reply, 400, -32700, 'Parse error: the request body is not valid JSON');
          }
          request.log.error({ err: error }, '/mcp request failed');
          return refuse(reply, 500, -32603, 'Internal error');
      }
    });

    const handle = async (request: FastifyRequest, reply: FastifyReply) => {
      reply.hijack();
      const res = reply.raw;
      const gone = new AbortController();
      let finished = false;
      res.on('close', () => {
        if (!finished) gone.abort(new Error('the client closed the connection'));
      });
      try {
        const auth = (request.raw as { auth?: AuthInfo }).auth;
        // Worked out once here; the forwarder, the plain call and the endpoint all take this answer.
        const generation = readRequestGeneration(request.method, request.headers, request.body);
        // Only a 2026-07-28 call carries a requestState to retry with.
        const state = generation === 'modern' ? deps.forwarder?.candidate(request.headers, request.body) : undefined;
        if (state !== undefined && deps.forwarder) {
          const target = await deps.forwarder.target(state);
          if (target && (await deps.forwarder.forward(target, request, res, gone.signal))) return;
        }
        const plain =
          request.method === 'POST'
            ? deps.endpoint.answerPlainToolCall(request.headers, request.body, {
                ...(auth ? { authInfo: auth } : {}),
                signal: gone.signal,
                generation,
                clientIp: request.ip,
              })
            : undefined;
        if (plain) {
          await sendPlainAnswer(plain, res, gone.signal, deps.keepAliveMs);
          return;
        }
        const response = await deps.endpoint.fetch(webRequestOf(request.raw, gone.signal), {
          ...(auth ? { authInfo: auth } : {}),
          ...(request.method === 'POST' ? { parsedBody: request.body } : {}),
          clientIp: request.ip,
          generation,
        });
        await sendWebResponse(response, res, gone.signal, request.method);
      } catch (error) {
        request.log.error({ err: error }, '/mcp request failed');
        if (!res.headersSent) {
          res.writeHead(500, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' }, id: null }));
        } else {
          res.end();
        }
      } finally {
        finished = true;
      }
    };
    scope.route({
      method: ['GET', 'POST', 'DELETE'],
      url: '/mcp',
      bodyLimit: deps.maxBodyBytes,
      // The satellite's logger itself, not a child per request: a child with redaction costs a
      // measurable share of a small call, and /mcp logs only failures, which name the request id.
      childLoggerFactory: (logger) => logger,
      handler: handle,
    });
  });
}
