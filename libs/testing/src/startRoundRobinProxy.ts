import { createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { Endpoint } from './infrastructure.ts';
import { closeNow, listenLocally } from './listenLocally.ts';

export type RoundRobinProxy = {
  /** Where clients connect instead of the targets. */
  host: string;
  port: number;
  /** How many requests each target received, in the order the targets were given. */
  served(): number[];
  close(): Promise<void>;
};

const hopByHop = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'te', 'trailer']);

function endToEnd(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const kept: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !hopByHop.has(name)) kept[name] = value;
  }
  return kept;
}

/**
 * An HTTP load balancer without affinity in front of several replicas, as nginx's default upstream
 * balancing is: each request goes to the next target in turn, whichever connection it came on, and its
 * answer (event streams included) is streamed back. Headers pass as they came, `Host` included.
 */
export async function startRoundRobinProxy(targets: readonly Endpoint[]): Promise<RoundRobinProxy> {
  if (targets.length === 0) throw new Error('a round-robin proxy needs at least one target');
  const counts = targets.map(() => 0);
  let next = 0;
  const server = createServer((incoming, outgoing) => {
    const index = next++ % targets.length;
    counts[index] = (counts[index] ?? 0) + 1;
    const target = targets[index] as Endpoint;
    const upstream = httpRequest({
      host: target.host,
      port: target.port,
      method: incoming.method,
      path: incoming.url,
      headers: endToEnd(incoming.headers),
    });
    upstream.on('response', (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, endToEnd(answer.headers));
      outgoing.flushHeaders();
      answer.pipe(outgoing);
    });
    upstream.on('error', () => {
      if (!outgoing.headersSent) outgoing.writeHead(502).end();
      else outgoing.destroy();
    });
    outgoing.on('close', () => upstream.destroy());
    incoming.pipe(upstream);
  });
  const port = await listenLocally(server);
  return {
    host: '127.0.0.1',
    port,
    served: () => [...counts],
    close: () => closeNow(server),
  };
}
