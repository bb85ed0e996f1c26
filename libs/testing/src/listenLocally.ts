import type { Server as HttpServer } from 'node:http';
import type { Server } from 'node:net';

/** Listens on the loopback interface (port 0: a free one) and answers the port; a port taken rejects. */
export async function listenLocally(server: Server, port = 0): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('the server has no TCP address');
  return address.port;
}

/** Closes an HTTP server now: kept-alive connections would otherwise hold `close` open until they idle out. */
export function closeNow(server: HttpServer): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}
