import {
  createInbox,
  type Msg,
  type MsgHdrs,
  type NatsConnection,
  NoRespondersError,
  PermissionViolationError,
  RequestError,
  type Subscription,
  TimeoutError,
} from '@nats-io/transport-node';

export type ReplyMux = {
  /** Publishes a request and resolves with its one reply; rejects as the client's own request would. */
  request(subject: string, data: string | Uint8Array, options: { timeoutMs: number; headers: MsgHdrs }): Promise<Msg>;
};

type Waiting = { subject: string; resolve(msg: Msg): void; reject(error: Error): void; timer: NodeJS.Timeout };

/**
 * Request/reply over one subscription to `<inbox>.*`, as the NATS client's own `request` works, without
 * what that costs per request: after every request, answered or not, the client rejects its already
 * settled promise with a new RequestError, whose stack trace was about a twentieth of gateway-api's CPU
 * on the command poll (`noAsyncTraces` does not cover it). The failures are the client's: a
 * TimeoutError, a NoRespondersError (the server's 503 status when nobody serves the subject), a
 * RequestError when the server refuses to carry the request or the connection closes;
 * `translateRequestError` reads them alike.
 */
export function createReplyMux(connection: NatsConnection, inboxPrefix?: string): ReplyMux {
  const base = `${createInbox(inboxPrefix)}.`;
  const waiting = new Map<string, Waiting>();
  let next = 0;
  let subscription: Subscription | null = null;

  const settle = (token: string): Waiting | undefined => {
    const entry = waiting.get(token);
    if (!entry) return undefined;
    waiting.delete(token);
    clearTimeout(entry.timer);
    return entry;
  };

  const listen = () => {
    subscription = connection.subscribe(`${base}*`, {
      callback: (error, msg) => {
        if (error) {
          // The subscription itself failed (a permission refused, the connection draining): nothing
          // waiting can be answered any more.
          for (const token of [...waiting.keys()]) settle(token)?.reject(error);
          subscription = null;
          return;
        }
        const entry = settle(msg.subject.slice(base.length));
        if (!entry) return;
        if (msg.data.length === 0 && msg.headers?.code === 503) entry.reject(new NoRespondersError(entry.subject));
        else entry.resolve(msg);
      },
    });
  };

  // The server refused to carry a request (its subject is outside this process's permissions): the
  // request waiting on that subject fails now, as the client's own would, not at its timeout.
  void (async () => {
    for await (const status of connection.status()) {
      if (status.type !== 'error') continue;
      const refused = status.error;
      if (!(refused instanceof PermissionViolationError) || refused.operation !== 'publish') continue;
      for (const [token, entry] of waiting) {
        if (entry.subject !== refused.subject) continue;
        settle(token)?.reject(new RequestError(refused.message, { cause: refused }));
        break;
      }
    }
  })();

  void connection.closed().then(() => {
    for (const token of [...waiting.keys()]) settle(token)?.reject(new RequestError('connection closed'));
  });

  return {
    request(subject, data, { timeoutMs, headers }) {
      if (!subscription) listen();
      next = (next + 1) % Number.MAX_SAFE_INTEGER;
      const token = next.toString(36);
      return new Promise<Msg>((resolve, reject) => {
        const timer = setTimeout(() => settle(token)?.reject(new TimeoutError()), timeoutMs);
        waiting.set(token, { subject, resolve, reject, timer });
        try {
          connection.publish(subject, data, { reply: `${base}${token}`, headers });
        } catch (error) {
          settle(token);
          reject(error);
        }
      });
    },
  };
}
