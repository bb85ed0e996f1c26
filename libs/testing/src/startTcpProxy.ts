import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';
import type { Endpoint } from './infrastructure.ts';
import { listenLocally } from './listenLocally.ts';

export type TcpProxy = {
  /** Where clients connect instead of the target. */
  host: string;
  port: number;
  /**
   * The target becomes unreachable. `refuse` (the default) resets every open connection and every new
   * one, as a stopped server does; `hang` keeps connections open and carries nothing either way, as a
   * network partition does, so clients wait for their own timeouts.
   */
  cut(mode?: 'refuse' | 'hang'): void;
  /** New connections reach the target again (connections cut while hanging stay dead). */
  restore(): void;
  /** Connections currently carried to the target. */
  openConnections(): number;
  close(): Promise<void>;
};

/**
 * A TCP proxy in front of a real server (PostgreSQL, NATS, Redis), so a test can take the server away
 * from the services under test and give it back, without stopping the server other tests share.
 */
export async function startTcpProxy(target: Endpoint): Promise<TcpProxy> {
  let state: 'open' | 'refuse' | 'hang' = 'open';
  const pairs = new Set<{ client: Socket; upstream: Socket | null }>();

  const server: Server = createServer((client) => {
    if (state === 'refuse') {
      client.resetAndDestroy();
      return;
    }
    const pair: { client: Socket; upstream: Socket | null } = { client, upstream: null };
    pairs.add(pair);
    const forget = () => {
      pairs.delete(pair);
      client.destroy();
      pair.upstream?.destroy();
    };
    client.on('error', forget);
    client.on('close', forget);
    // While hanging, a new connection is accepted and then never answered.
    if (state === 'hang') return;
    const upstream = tcpConnect(target);
    pair.upstream = upstream;
    upstream.on('error', forget);
    upstream.on('close', forget);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  const port = await listenLocally(server);

  return {
    host: '127.0.0.1',
    port,
    cut(mode = 'refuse') {
      state = mode;
      for (const pair of [...pairs]) {
        if (mode === 'refuse') {
          pairs.delete(pair);
          pair.client.resetAndDestroy();
          pair.upstream?.destroy();
        } else {
          // Nothing more crosses: the bytes in flight are dropped, as on a dead link.
          pair.client.unpipe();
          pair.upstream?.unpipe();
          pair.client.removeAllListeners('data');
          pair.upstream?.removeAllListeners('data');
          pair.client.on('data', () => {});
          pair.upstream?.on('data', () => {});
        }
      }
    },
    restore() {
      state = 'open';
    },
    openConnections: () => [...pairs].filter((p) => p.upstream !== null).length,
    async close() {
      for (const pair of pairs) {
        pair.client.destroy();
        pair.upstream?.destroy();
      }
      pairs.clear();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
