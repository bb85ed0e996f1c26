import type { NatsConnection } from '@nats-io/transport-node';

/**
 * Follows a connection's status, so a request or a publish made while NATS is away is refused at once
 * (503 in gateway-api) instead of waiting out its timeout in the reconnect buffer.
 */
export function watchConnection(connection: NatsConnection): { isConnected(): boolean } {
  let connected = !connection.isClosed();
  void (async () => {
    for await (const status of connection.status()) {
      if (status.type === 'disconnect' || status.type === 'staleConnection') connected = false;
      else if (status.type === 'reconnect') connected = true;
    }
  })();
  return { isConnected: () => connected && !connection.isClosed() };
}
