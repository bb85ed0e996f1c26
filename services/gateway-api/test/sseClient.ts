import { createSseParser, type ReceivedSseEvent } from '@orbital/sse';

export type SseClient = {
  status: number;
  events: ReceivedSseEvent[];
  /** Everything received, comments included. */
  raw(): string;
  lastEventId(): string;
  retryMs(): number | null;
  /** Waits for the n-th event (1-based count of all events so far). */
  waitForCount(count: number, timeoutMs?: number): Promise<ReceivedSseEvent[]>;
  waitForText(text: string, timeoutMs?: number): Promise<void>;
  close(): void;
};

/** A real HTTP client of an SSE endpoint (fetch), reading the stream as it arrives. */
export async function openSse(url: string, headers: Record<string, string>): Promise<SseClient> {
  const controller = new AbortController();
  const response = await fetch(url, {
    headers: { accept: 'text/event-stream', ...headers },
    signal: controller.signal,
  });
  const events: ReceivedSseEvent[] = [];
  let raw = '';
  const waiters = new Set<() => void>();
  const parser = createSseParser((event) => events.push(event));
  if (response.body && response.headers.get('content-type')?.startsWith('text/event-stream')) {
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    void (async () => {
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          raw += value;
          parser.push(value);
          for (const wake of waiters) wake();
        }
      } catch {
        // aborted by close()
      }
    })();
  }
  const waitFor = (ready: () => boolean, what: string, timeoutMs: number) =>
    new Promise<void>((resolve, reject) => {
      if (ready()) return resolve();
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`timed out waiting for ${what}; got ${JSON.stringify(events)}`));
      }, timeoutMs);
      const check = () => {
        if (!ready()) return;
        clearTimeout(timer);
        waiters.delete(check);
        resolve();
      };
      waiters.add(check);
    });
  return {
    status: response.status,
    events,
    raw: () => raw,
    lastEventId: () => parser.lastEventId(),
    retryMs: () => parser.retryMs(),
    async waitForCount(count, timeoutMs = 10000) {
      await waitFor(() => events.length >= count, `${count} events`, timeoutMs);
      return events;
    },
    waitForText: (text, timeoutMs = 10000) => waitFor(() => raw.includes(text), JSON.stringify(text), timeoutMs),
    close: () => controller.abort(),
  };
}
