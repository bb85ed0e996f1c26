import type { FastifyReply, FastifyRequest } from 'fastify';

/** How much of a refused body is read and thrown away, and for how long, before the connection is cut. */
const maxDiscardBytes = 64 * 1024 * 1024;
const maxDiscardMs = 15_000;

/**
 * A body over the limit is answered 413 while the client may still be sending it. Closing the
 * connection at once (what Fastify does) makes the client's next write fail (EPIPE, a reset) and many
 * clients then never read the answer. So the connection stays open and the rest of the body is read
 * and discarded, as a lingering close does, up to a size and a time; only a client that keeps sending
 * past them is cut off.
 */
export function drainRejectedBody(request: FastifyRequest, reply: FastifyReply): void {
  // Neither Fastify's `connection: close` nor the client's own: either makes Node close the socket as
  // soon as the answer is written, while the client is still sending.
  reply.removeHeader('connection');
  reply.raw.shouldKeepAlive = true;
  const incoming = request.raw;
  if (incoming.complete) return;
  let discarded = 0;
  const cut = () => incoming.socket?.destroy();
  const timer = setTimeout(cut, maxDiscardMs);
  timer.unref();
  incoming.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > maxDiscardBytes) cut();
  });
  incoming.on('end', () => clearTimeout(timer));
  incoming.on('close', () => clearTimeout(timer));
  incoming.resume();
}
