import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type RecordedRequest = {
  method: string;
  /** Without the query string. */
  path: string;
  query: URLSearchParams;
  authorization: string | undefined;
  body: unknown;
};

/** What the scripted backend does with one request: answer, or hold it open until the test ends. */
export type ScriptedReply = { status: number; body?: unknown; headers?: Record<string, string> } | 'hang';

export type ScriptedBackend = {
  url: string;
  requests: RecordedRequest[];
  /** Replaces the answering function; it sees every request in arrival order. */
  respond(handler: (request: RecordedRequest) => ScriptedReply): void;
  /** Resolves once `count` requests have arrived (counting from the start). */
  waitForRequests(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
};

/**
 * A real HTTP server on a free port that answers as the test scripts it: the way to provoke what the
 * real backend does rarely (429 sequences, 500s, a request that never returns).
 */
export async function startScriptedBackend(): Promise<ScriptedBackend> {
  const requests: RecordedRequest[] = [];
  const hanging = new Set<ServerResponse>();
  const waiters: Array<() => void> = [];
  let handler: (request: RecordedRequest) => ScriptedReply = () => ({ status: 500, body: {} });

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const recorded: RecordedRequest = {
        method: req.method ?? 'GET',
        path: (req.url ?? '/').split('?')[0] ?? '/',
        query: new URLSearchParams((req.url ?? '').split('?')[1] ?? ''),
        authorization: req.headers.authorization,
        body: text ? JSON.parse(text) : undefined,
      };
      requests.push(recorded);
      for (const waiter of [...waiters]) waiter();
      const reply = handler(recorded);
      if (reply === 'hang') {
        hanging.add(res);
        res.on('close', () => hanging.delete(res));
        return;
      }
      res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
      res.end(reply.body === undefined ? '' : JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    respond(next) {
      handler = next;
    },
    waitForRequests(count, timeoutMs = 10000) {
      if (requests.length >= count) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`only ${requests.length} of ${count} requests arrived`)),
          timeoutMs,
        );
        const waiter = () => {
          if (requests.length < count) return;
          clearTimeout(timer);
          waiters.splice(waiters.indexOf(waiter), 1);
          resolve();
        };
        waiters.push(waiter);
      });
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * The events endpoint's reply to a batch, event by event: each accepted but those at `rejected`
 * (positions in the batch), which are refused as invalid.
 */
export function batchReply(request: RecordedRequest, rejected: readonly number[] = []): ScriptedReply {
  const events = (request.body as { events: Array<{ id: string }> }).events;
  return {
    status: 200,
    body: {
      success: true,
      data: {
        accepted: events.length - rejected.length,
        rejected: rejected.length,
        results: events.map((e, index) =>
          rejected.includes(index)
            ? { index, id: e.id, status: 'rejected', error: { code: 'validation_failed', message: 'bad data' } }
            : { index, id: e.id, status: 'accepted', duplicate: false },
        ),
      },
    },
  };
}

/** The events endpoint's reply accepting every event of a batch. */
export const acceptAll = (request: RecordedRequest): ScriptedReply => batchReply(request);

export const errorReply = (status: number, code: string, extra: Record<string, unknown> = {}): ScriptedReply => ({
  status,
  body: { success: false, error: { code, message: `scripted ${code}`, ...extra } },
});
