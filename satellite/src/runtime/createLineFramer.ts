/** What the framer saw of a line it refused: its size and enough of its ends to tell what it was. */
export type OversizedLine = {
  /** Bytes of the line, newline excluded. */
  bytes: number;
  /** The JSON-RPC id, when the line's ends show it (a response to one of our requests, usually). */
  id: string | number | undefined;
  /**
   * What the line's start shows: a response (`result`, `error` or `id` before any `method`), a request
   * or notification from the server (`method`), or something that is not JSON-RPC at all.
   */
  kind: 'response' | 'server_message' | 'other';
};

/** Bytes kept of each end of an oversized line: enough for `{"jsonrpc":"2.0","id":...` or `...,"id":12}`. */
const edgeBytes = 256;
const newline = 0x0a;

/**
 * Splits a byte stream into newline-delimited lines without ever holding more than `maxLineBytes` of
 * one line: MCP over stdio (one JSON-RPC message per line) and server-sent events (a message is one
 * `data:` line). A line within the limit is handed over as the pieces it arrived in (never a growing
 * buffer copied on every chunk), newline excluded and nothing else touched (a `\r`, an empty line); a
 * line beyond it is dropped as it streams past, keeping only its first and last bytes so the id of the
 * request it answers can be recovered, and the next line is read normally: the stream stays in step.
 */
export function createLineFramer(options: {
  maxLineBytes: number;
  onLine: (pieces: readonly Buffer[]) => void;
  onOversized: (line: OversizedLine) => void;
  /** Text before the message on each line (`data:` in server-sent events), skipped when describing one. */
  prefix?: RegExp;
}) {
  const { maxLineBytes } = options;
  let pieces: Buffer[] = [];
  let pendingBytes = 0;
  /** The first and last bytes of the current line, kept small, for describing it if it is refused. */
  let head: Buffer = Buffer.alloc(0);
  let tail: Buffer = Buffer.alloc(0);
  /** Set while an oversized line streams past. */
  let dropping = false;

  const takeRest = (chunk: Buffer) => {
    pendingBytes += chunk.length;
    if (head.length < edgeBytes) head = Buffer.concat([head, chunk.subarray(0, edgeBytes - head.length)]);
    if (dropping || pendingBytes > maxLineBytes) {
      // What was held goes; the rest of the line is only counted, its last bytes kept.
      dropping = true;
      if (pieces.length) {
        for (const piece of pieces) tail = keepTail(tail, piece);
        pieces = [];
      }
      tail = keepTail(tail, chunk);
      return;
    }
    pieces.push(chunk);
  };

  const reset = () => {
    pieces = [];
    pendingBytes = 0;
    head = Buffer.alloc(0);
    tail = Buffer.alloc(0);
    dropping = false;
  };

  const endLine = () => {
    if (dropping) {
      const refused = describe(head, tail, pendingBytes, options.prefix);
      reset();
      options.onOversized(refused);
      return;
    }
    const line = pieces;
    reset();
    options.onLine(line);
  };

  return {
    push(chunk: Buffer): void {
      let start = 0;
      for (;;) {
        const end = chunk.indexOf(newline, start);
        if (end === -1) {
          if (start < chunk.length) takeRest(chunk.subarray(start));
          return;
        }
        if (end > start) takeRest(chunk.subarray(start, end));
        endLine();
        start = end + 1;
      }
    },
    /** Bytes of the line being assembled (for tests and metrics). */
    pendingBytes: () => pendingBytes,
    clear: reset,
  };
}

function keepTail(previous: Buffer, chunk: Buffer): Buffer {
  if (chunk.length >= edgeBytes) return Buffer.from(chunk.subarray(chunk.length - edgeBytes));
  const joined = Buffer.concat([previous, chunk]);
  return joined.length > edgeBytes ? Buffer.from(joined.subarray(joined.length - edgeBytes)) : joined;
}

const idValue = String.raw`(-?\d+|"(?:[^"\\]|\\.)*")`;
/** `{"jsonrpc":"2.0","id":7,` or `{"id":7,` at the very start: a top-level member, nothing nested before it. */
const idAtStart = new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${idValue}\s*,`);
/** `,"id":7}` at the very end: after it only the closing brace of the message itself. */
const idAtEnd = new RegExp(String.raw`[,{]\s*"id"\s*:\s*${idValue}\s*\}\s*$`);
const methodAtStart = /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?(?:"id"\s*:\s*[^,]+,\s*)?"method"\s*:/;
const jsonRpcAtStart = /^\s*\{\s*"(?:jsonrpc|id|result|error)"\s*:/;

/**
 * The id of a JSON-RPC message from its two ends only. SDKs write the id either first (after
 * `jsonrpc`) or last; both positions are recognised only as members of the outer object, so an `"id"`
 * inside the result cannot be mistaken for it.
 */
function describe(head: Buffer, tail: Buffer, bytes: number, prefix: RegExp | undefined): OversizedLine {
  const text = head.toString('utf8');
  const start = prefix ? text.replace(prefix, '') : text;
  const end = tail.toString('utf8');
  const match = idAtStart.exec(start) ?? idAtEnd.exec(end);
  let id: string | number | undefined;
  if (match?.[1] !== undefined) {
    try {
      id = JSON.parse(match[1]) as string | number;
    } catch {
      id = undefined;
    }
  }
  const kind = methodAtStart.test(start) ? 'server_message' : jsonRpcAtStart.test(start) ? 'response' : 'other';
  return { bytes, id, kind };
}
