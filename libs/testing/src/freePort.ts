import { createServer } from 'node:net';

/**
 * Ports are chosen below Linux's ephemeral range (32768 and up by default), where the kernel never
 * hands one to an outgoing connection: a port the operating system picked for us (`listen(0)`) is an
 * ephemeral one, and under load an outgoing PostgreSQL or NATS connection of another test can take it
 * between our check and the service's own bind.
 */
const lowest = 20000;
const highest = 32767;

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A TCP port free on 127.0.0.1 right now, for a server whose own URL must be known before it starts
 * (an OAuth issuer names itself). Another test could pick the same one in between; the random start
 * over twelve thousand ports makes that rare, and nothing else on the machine takes ports from this range.
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = lowest + Math.floor(Math.random() * (highest - lowest + 1));
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port between ${lowest} and ${highest} after 50 attempts`);
}
