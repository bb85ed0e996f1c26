/**
 * The streams a process is serving right now. Every stream registers when it starts and leaves once
 * its clean-up has finished (feed closed, timers cleared), so `size()` falling back to zero proves a
 * departed client left nothing behind. Operators read it as a gauge.
 */
export type LiveStreams = {
  add(entry: LiveStream): void;
  delete(entry: LiveStream): void;
  size(): number;
  /** Open JetStream feeds, counted apart: a stream holds at most one, and none once it ended. */
  feeds(): number;
  feedOpened(): void;
  feedClosed(): void;
  /** Ends every stream (gateway shutdown): clients reconnect to another replica and replay. */
  closeAll(): void;
};

export type LiveStream = { route: string; startedAt: number; close(): void };

export function createLiveStreams(): LiveStreams {
  const entries = new Set<LiveStream>();
  let feeds = 0;
  return {
    add: (entry) => entries.add(entry),
    delete: (entry) => entries.delete(entry),
    size: () => entries.size,
    feeds: () => feeds,
    feedOpened: () => {
      feeds++;
    },
    feedClosed: () => {
      feeds--;
    },
    closeAll: () => {
      for (const entry of entries) entry.close();
    },
  };
}
