import { createServer } from 'node:net';

/** The ports of the list that something already listens on (another `npm start`, another program). */
export async function findTakenPorts(ports: readonly number[], host = '0.0.0.0'): Promise<number[]> {
  const taken: number[] = [];
  for (const port of ports) {
    const free = await new Promise<boolean>((resolve) => {
      const probe = createServer();
      probe.once('error', () => resolve(false));
      probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve(true)));
    });
    if (!free) taken.push(port);
  }
  return taken;
}
