import { connect, type Socket } from 'node:net';

/**
 * A slow client on a raw socket to `port` on loopback: writes `first`, then `drip()` every 100 ms
 * until the server closes the connection; resolves with how many drips went out, or rejects if the
 * connection is still open after `giveUpMs`. Tests of a server's head and request time limits use it.
 */
export function trickleRequest(port: number, first: string, drip: () => string, giveUpMs = 15_000): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket: Socket = connect(port, '127.0.0.1');
    let drips = 0;
    let timer: NodeJS.Timeout | undefined;
    const giveUp = setTimeout(() => {
      clearInterval(timer);
      socket.destroy();
      reject(new Error(`still connected after ${drips} drips`));
    }, giveUpMs);
    socket.on('error', () => {});
    socket.on('close', () => {
      clearInterval(timer);
      clearTimeout(giveUp);
      resolve(drips);
    });
    socket.write(first);
    timer = setInterval(() => {
      if (socket.writable) {
        socket.write(drip());
        drips += 1;
      }
    }, 100);
  });
}
