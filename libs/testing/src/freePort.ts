import { createServer } from 'node:net';

/**
 * A TCP port free on 127.0.0.1 right now, for a server whose own URL must be known before it starts
 * (an OAuth issuer names itself). Another process could take it in between; tests accept that.
 */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address !== 'object') throw new Error('no port was assigned');
  return address.port;
}
