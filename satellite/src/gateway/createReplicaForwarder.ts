import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { Logger } from '@orbital/logger';
import type { CallRouting } from './createCallRouting.ts';
import { isPlainObject } from './jsonRpcShape.ts';

/** Marks a request one replica forwarded to another: it is served where it lands, never forwarded again. */
export const forwardedHeader = 'x-orbital-forwarded-by';

/** Headers that belong to one connection, not to the request or response carried over it. */
const hopByHop = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'content-length',
]);

function endToEnd(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const kept: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !hopByHop.has(name)) kept[name] = value;
  }
  return kept;
}

/**
 * Sends a 2026-07-28 retry to the replica that holds its call. The retry of a call that asked its
 * client for input carries the `requestState` the holding replica signed (createCallRouting); behind a
 * load balancer without affinity it may land anywhere, and the replica it lands on passes it on, as it
 * came (headers, `Host` and credentials included, so the holder checks origin and identity itself),
 * and streams the answer back. A replica it cannot reach leaves the retry to be refused here, saying so.
 */
export function createReplicaForwarder(options: { routing: CallRouting; logger: Logger }) {
  const { routing, logger } = options;
  const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };

  return {
    /**
     * The `requestState` of a POST that may belong to another replica's call, or undefined (cheaply:
     * most requests carry none). Forwarded requests are never forwarded again.
     */
    candidate(headers: IncomingHttpHeaders, body: unknown): string | undefined {
      if (!isPlainObject(body) || body.method !== 'tools/call' || headers[forwardedHeader] !== undefined)
        return undefined;
      const params = body.params;
      return isPlainObject(params) && typeof params.requestState === 'string' ? params.requestState : undefined;
    },
    /** The replica to send a retry with this state to, or undefined when it is this one's (or nobody's). */
    async target(requestState: string): Promise<URL | undefined> {
      const route = await routing.read(requestState);
      if (!route || routing.isLocal(route) || !route.replica) return undefined;
      return new URL('/mcp', route.replica);
    },
    /**
     * Forwards the request and streams the answer into `res`; false when the replica could not be
     * reached before anything was answered (the caller then serves the request itself, which refuses it).
     */
    forward(
      target: URL,
      incoming: { headers: IncomingHttpHeaders; body: unknown },
      res: ServerResponse,
      gone: AbortSignal,
    ): Promise<boolean> {
      const payload = Buffer.from(JSON.stringify(incoming.body));
      const https = target.protocol === 'https:';
      return new Promise((resolve) => {
        const outgoing = (https ? httpsRequest : httpRequest)(target, {
          method: 'POST',
          agent: https ? agents.https : agents.http,
          headers: {
            ...endToEnd(incoming.headers),
            'content-length': String(payload.length),
            [forwardedHeader]: routing.instanceTag,
          },
        });
        const stop = () => outgoing.destroy(new Error('the client closed the connection'));
        gone.addEventListener('abort', stop, { once: true });
        outgoing.on('response', (answer) => {
          res.writeHead(answer.statusCode ?? 502, endToEnd(answer.headers));
          if (answer.headers['content-type']?.startsWith('text/event-stream')) res.flushHeaders();
          answer.pipe(res);
          answer.on('close', () => {
            gone.removeEventListener('abort', stop);
            if (!res.writableEnded) res.end();
            resolve(true);
          });
        });
        outgoing.on('error', (error) => {
          gone.removeEventListener('abort', stop);
          if (res.headersSent) {
            res.destroy(error);
            resolve(true);
            return;
          }
          logger.warn(
            { err: error, replica: target.origin },
            'could not forward a retry to the replica holding its call',
          );
          resolve(false);
        });
        outgoing.end(payload);
      });
    },
    close(): void {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}

export type ReplicaForwarder = ReturnType<typeof createReplicaForwarder>;
