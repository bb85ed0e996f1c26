import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';

type OnMessage = NonNullable<Transport['onmessage']>;

const isResponse = (message: JSONRPCMessage) => !('method' in message) && 'id' in message;

/**
 * Hands one message to the SDK so that a response never overtakes the notifications that came before
 * it. The SDK runs notification handlers a microtask later but settles a response at once, so when a
 * server's last progress notification and its result arrive together, the request was already over
 * when the progress was handled, and the progress was lost. Responses wait one microtask, behind them.
 */
export function deliverInOrder(onmessage: OnMessage | undefined, message: JSONRPCMessage, extra?: unknown): void {
  if (!onmessage) return;
  if (isResponse(message)) queueMicrotask(() => onmessage(message, extra as never));
  else onmessage(message, extra as never);
}

/** The SDK's own transports (HTTP, SSE), delivering in order (see `deliverInOrder`). */
export function withOrderedDelivery<T extends Transport>(transport: T): T {
  return new Proxy(transport, {
    set(target, property, value, receiver) {
      if (property === 'onmessage' && typeof value === 'function') {
        const handler = value as OnMessage;
        target.onmessage = (message, extra) => deliverInOrder(handler, message, extra);
        return true;
      }
      return Reflect.set(target, property, value, receiver);
    },
  });
}
