export type LogLine = { log_level: 'debug' | 'info' | 'warn' | 'error'; message: string; timestamp: string };

export type StderrBatcher = {
  write(chunk: Buffer | string): void;
  /** Sends what is buffered, including a last line without its newline (the process has exited). */
  flush(): void;
  close(): void;
};

const maxLineLength = 8192;

/** stderr has no levels; servers that log usually say how bad a line is, so take the hint. */
export function levelOf(line: string): LogLine['log_level'] {
  if (/\b(error|fatal|exception|panic|traceback)\b/i.test(line)) return 'error';
  if (/\bwarn(ing)?\b/i.test(line)) return 'warn';
  if (/\bdebug\b/i.test(line)) return 'debug';
  return 'info';
}

/**
 * Collects a server's stderr into lines and hands them over in batches: every `intervalMs`, or at
 * once when `maxLines` are waiting, so a chatty server costs one event per batch, not one per line.
 */
export function createStderrBatcher(options: {
  intervalMs: number;
  maxLines: number;
  send: (lines: LogLine[]) => void;
}): StderrBatcher {
  let partial = '';
  let lines: LogLine[] = [];
  let timer: NodeJS.Timeout | undefined;
  const push = (text: string) => {
    const message = text.replace(/\r$/, '').slice(0, maxLineLength);
    if (message.trim() === '') return;
    lines.push({ log_level: levelOf(message), message, timestamp: new Date().toISOString() });
  };
  const send = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (lines.length === 0) return;
    const batch = lines;
    lines = [];
    options.send(batch);
  };
  return {
    write(chunk) {
      const parts = (partial + chunk.toString()).split('\n');
      partial = parts.pop() ?? '';
      // A line longer than the limit is cut rather than buffered without end.
      if (partial.length > maxLineLength) {
        push(partial);
        partial = '';
      }
      for (const part of parts) push(part);
      if (lines.length >= options.maxLines) send();
      else if (lines.length > 0 && !timer) {
        timer = setTimeout(send, options.intervalMs);
        timer.unref();
      }
    },
    flush() {
      if (partial) push(partial);
      partial = '';
      send();
    },
    close() {
      this.flush();
    },
  };
}
