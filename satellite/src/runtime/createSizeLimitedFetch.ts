import { createLineFramer } from './createLineFramer.ts';
import { MessageTooLargeError } from './messageTooLargeError.ts';

type Fetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

const newline = Buffer.from('\n');

/** The id of the one JSON-RPC request a POST carried, read only when it is needed. */
function requestIdOf(init: RequestInit | undefined): string | number | undefined {
  if (init?.method !== 'POST' || typeof init.body !== 'string') return undefined;
  try {
    const message = JSON.parse(init.body) as { id?: unknown; method?: unknown };
    return typeof message.method === 'string' && (typeof message.id === 'number' || typeof message.id === 'string')
      ? message.id
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Server-sent events with no `data:` line longer than `maxBytes` (an MCP message is one such line).
 * A longer one is dropped as it streams past and, when it answered a request (its id read from its
 * ends, or the request this POST carried), replaced by a JSON-RPC error for that request naming the
 * limit: the call fails at once instead of waiting for its timeout, and the stream carries on.
 */
function limitEvents(
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
  fallbackId: () => string | number | undefined,
) {
  let out: Buffer[] = [];
  const framer = createLineFramer({
    maxLineBytes: maxBytes,
    prefix: /^data: ?/,
    onLine: (pieces) => {
      out.push(...pieces, newline);
    },
    onOversized: (line) => {
      const id = line.kind === 'response' ? (line.id ?? fallbackId()) : undefined;
      if (id === undefined) return;
      const answer = new MessageTooLargeError(line.bytes, maxBytes).toResponse(id);
      out.push(Buffer.from(`data: ${JSON.stringify(answer)}\n`));
    },
  });
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        framer.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if (out.length === 0) return;
        controller.enqueue(out.length === 1 ? (out[0] as Buffer) : Buffer.concat(out));
        out = [];
      },
    }),
  );
}

/** A whole-body answer (`application/json`) that errors past `maxBytes` instead of being held. */
function limitWhole(body: ReadableStream<Uint8Array>, maxBytes: number) {
  let bytes = 0;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        bytes += chunk.byteLength;
        if (bytes > maxBytes) controller.error(new MessageTooLargeError(bytes, maxBytes, { cutShort: true }));
        else controller.enqueue(chunk);
      },
    }),
  );
}

/**
 * A fetch for remote MCP servers that never lets one message grow past `maxBytes`, the limit stdio
 * servers have too: an oversized answer fails its own request with a clear error, the connection and
 * every other call carry on, and the satellite never holds more than the limit of it.
 */
export function createSizeLimitedFetch(inner: Fetch, maxBytes: number): Fetch {
  return async (url, init) => {
    const response = await inner(url, init);
    if (!response.ok || !response.body) return response;
    const type = (response.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
    let body: ReadableStream<Uint8Array>;
    if (type === 'text/event-stream') body = limitEvents(response.body, maxBytes, () => requestIdOf(init));
    else if (type === 'application/json') {
      const declared = Number(response.headers.get('content-length'));
      if (declared > maxBytes) {
        await response.body.cancel().catch(() => {});
        throw new MessageTooLargeError(declared, maxBytes);
      }
      body = limitWhole(response.body, maxBytes);
    } else return response;
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
