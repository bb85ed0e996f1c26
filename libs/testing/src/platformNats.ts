import { generateNatsUser, natsServerConfig } from '@orbital/bus';
import { type ProcessName, processNames } from '@orbital/contracts';
import { type PrivateNatsServer, startNatsServer } from './startNatsServer.ts';

export type PlatformNats = {
  server: PrivateNatsServer;
  url: string;
  /** Each process's NKey seed: its credentials on this server. */
  seeds: Record<ProcessName, string>;
  /** The environment a process needs to connect as itself (NATS_URL, NATS_NKEY_SEED). */
  envFor(process: ProcessName): Record<string, string>;
  /** The configuration the server runs with, as generated from the contract catalogue. */
  config: string;
};

/**
 * A private nats-server that knows every platform process by its own NKey and gives each exactly the
 * permissions the contract catalogue derives for it (libs/bus natsPermissions.ts), with no anonymous
 * access: what `npm start` and the Kubernetes manifests run, for tests that prove it.
 */
export async function startPlatformNats(options: { prefix?: string } = {}): Promise<PlatformNats> {
  const users = Object.fromEntries(processNames.map((process) => [process, generateNatsUser()])) as Record<
    ProcessName,
    { seed: string; publicKey: string }
  >;
  const config = natsServerConfig({
    ...(options.prefix ? { prefix: options.prefix } : {}),
    users: Object.fromEntries(processNames.map((process) => [process, users[process].publicKey])),
  });
  const server = await startNatsServer(config);
  const seeds = Object.fromEntries(processNames.map((process) => [process, users[process].seed])) as Record<
    ProcessName,
    string
  >;
  return {
    server,
    url: server.url,
    seeds,
    config,
    envFor: (process) => ({ NATS_URL: server.url, NATS_NKEY_SEED: seeds[process] }),
  };
}
