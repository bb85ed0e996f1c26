import { createHash } from 'node:crypto';
import type { EmbeddingClient } from './createEmbeddingClient.ts';

export type ToolVectors = {
  /** Asks for the vectors of these texts: the ones not held yet are embedded in the background. */
  want(texts: Iterable<string>): void;
  /** The vector of a text, when it has been embedded. */
  get(text: string): Float32Array | undefined;
  /** Grows whenever vectors arrive, so a ranking knows to pack them again. */
  version(): number;
  stats(): { embedded: number; pending: number; failures: number };
  /** Resolves once every text asked for is embedded or the store is closed (benchmarks and tests wait on it). */
  idle(): Promise<void>;
  close(): void;
};

export type ToolVectorOptions = {
  client: EmbeddingClient;
  /** Texts per embedding call: small batches keep a discovery call from waiting long behind one. */
  batchSize?: number;
  /** How long one background call may take before it is given up and retried. */
  batchTimeoutMs?: number;
  /** After a failed call, the next waits this long, doubling up to `retryMaxMs`. */
  retryBaseMs?: number;
  retryMaxMs?: number;
  /** The most vectors held; the least recently asked for go first. */
  maxVectors?: number;
  onError?: (error: unknown, retryInMs: number) => void;
};

/**
 * Tool vectors, computed when a tool list changes and cached by a SHA-256 of the text that was embedded,
 * so the same tool in several teams' lists, or back after a restart of its server, is embedded once per
 * model. Embedding runs in the background, one batch at a time, never on a discovery call's path; a call
 * ranks by meaning whatever tools already have vectors.
 */
export function createToolVectors(options: ToolVectorOptions): ToolVectors {
  const batchSize = options.batchSize ?? 16;
  const batchTimeoutMs = options.batchTimeoutMs ?? 60_000;
  const retryBaseMs = options.retryBaseMs ?? 1000;
  const retryMaxMs = options.retryMaxMs ?? 60_000;
  const maxVectors = options.maxVectors ?? 50_000;
  const vectors = new Map<string, Float32Array>();
  const pending = new Map<string, string>();
  let version = 0;
  let failures = 0;
  let running = false;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let waiters: Array<() => void> = [];

  const keyOf = (text: string) => createHash('sha256').update(text).digest('base64url');

  const settle = () => {
    if (pending.size > 0 && !closed) return;
    for (const resolve of waiters) resolve();
    waiters = [];
  };

  const run = async () => {
    if (running || closed) return;
    running = true;
    try {
      while (pending.size > 0 && !closed) {
        const batch = [...pending].slice(0, batchSize);
        let embedded: Float32Array[];
        try {
          embedded = await options.client.embed(
            batch.map(([, text]) => text),
            AbortSignal.timeout(batchTimeoutMs),
          );
        } catch (error) {
          failures++;
          const retryInMs = Math.min(retryMaxMs, retryBaseMs * 2 ** Math.min(failures - 1, 20));
          options.onError?.(error, retryInMs);
          timer = setTimeout(() => {
            timer = undefined;
            void run();
          }, retryInMs);
          timer.unref();
          return;
        }
        failures = 0;
        batch.forEach(([key], i) => {
          pending.delete(key);
          const vector = embedded[i];
          if (vector) vectors.set(key, vector);
        });
        while (vectors.size > maxVectors) vectors.delete(vectors.keys().next().value as string);
        version++;
      }
    } finally {
      running = false;
      settle();
    }
  };

  return {
    want(texts) {
      if (closed) return;
      let added = false;
      for (const text of texts) {
        const key = keyOf(text);
        const held = vectors.get(key);
        if (held) {
          // Asked for again: the most recently used stay when the store is full.
          vectors.delete(key);
          vectors.set(key, held);
        } else if (!pending.has(key)) {
          pending.set(key, text);
          added = true;
        }
      }
      if (added && !timer) void run();
    },
    get: (text) => vectors.get(keyOf(text)),
    version: () => version,
    stats: () => ({ embedded: vectors.size, pending: pending.size, failures }),
    idle() {
      if (pending.size === 0 || closed) return Promise.resolve();
      return new Promise((resolve) => waiters.push(resolve));
    },
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      settle();
    },
  };
}
