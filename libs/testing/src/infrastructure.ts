import { execFileSync } from 'node:child_process';
import { connect as netConnect } from 'node:net';

export type Endpoint = { host: string; port: number };

export const defaults = {
  postgres: { host: process.env.POSTGRES_HOST || '127.0.0.1', port: Number(process.env.POSTGRES_PORT || 5432) },
  nats: { host: '127.0.0.1', port: 4222 },
  redis: { host: '127.0.0.1', port: 6379 },
};

export function isReachable(endpoint: Endpoint, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = netConnect(endpoint);
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

export function hasDocker(): boolean {
  try {
    execFileSync('docker', ['info'], { stdio: 'ignore', timeout: 5000 });
    return true;
  } catch {
    return false;
  }
}

export const startCommands = {
  postgres: 'pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start',
  redis:
    'redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no --dir /var/lib/redis --logfile /var/log/redis/ci.log',
  nats: 'start-stop-daemon --start --oknodo --background --exec /usr/sbin/nats-server -- -a 127.0.0.1 -p 4222 -js -sd /var/lib/nats-server -l /var/log/nats-server.log',
} as const;

export class InfrastructureMissingError extends Error {
  constructor(name: keyof typeof startCommands, endpoint: Endpoint) {
    super(
      `${name} is not reachable at ${endpoint.host}:${endpoint.port} and Docker is not available to start it with testcontainers.\n` +
        `Start it (as root) with:\n  ${startCommands[name]}\nor run the tests through .ci/run, which does this for you.`,
    );
    this.name = 'InfrastructureMissingError';
  }
}
