import type { ChildProcess } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';
import {
  deserializeMessage,
  type JSONRPCMessage,
  serializeMessage,
  type Transport,
} from '@modelcontextprotocol/client';
import { deliverInOrder } from '../sdkAdaptation/withOrderedDelivery.ts';
import { createLineFramer, type OversizedLine } from './createLineFramer.ts';
import { formatBytes, MessageTooLargeError, messageTooLargeCode } from './messageTooLargeError.ts';

/**
 * What became of a refused line: the request it answered failed with the limit (`answered`), it came
 * from the server itself (`server_message`: a request of its own was answered with the error, a
 * notification dropped), it was not JSON-RPC (`not_json_rpc`: dropped), or it was an answer that
 * matched no request (`unmatched`), so a request may wait forever.
 */
export type OversizedOutcome = 'answered' | 'server_message' | 'unmatched' | 'not_json_rpc';

/**
 * MCP over the stdin/stdout of a child the process manager spawned itself. The SDK's stdio client
 * transport spawns its own child, which would take away the process group, the environment and the
 * exit handling the manager needs; this one only frames messages.
 *
 * No message may exceed `maxMessageBytes`: a longer line is dropped as it streams in (never held
 * whole), and the request it answered (its id read from the line's ends, or the only request waiting)
 * gets a JSON-RPC error naming the limit in its place, so the caller fails cleanly and the process
 * keeps serving. `onOversized` tells the owner about every refused line and whether it could be
 * matched to a request; an unmatched answer leaves a request waiting forever, which only the owner
 * can resolve (by restarting the process).
 */
export class ChildProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly #child: ChildProcess;
  readonly #framer: ReturnType<typeof createLineFramer>;
  readonly #maxMessageBytes: number;
  readonly #onOversized: ((line: OversizedLine, outcome: OversizedOutcome) => void) | undefined;
  /** Ids of requests sent and not yet answered: the only candidates an oversized answer can belong to. */
  readonly #waiting = new Set<string | number>();
  /** Messages serialised since the last write, and the senders waiting for it. */
  #batch: { text: string; settled: { resolve: () => void; reject: (error: Error) => void }[] } | undefined;
  #closed = false;

  constructor(
    child: ChildProcess,
    options: { maxMessageBytes: number; onOversized?: (line: OversizedLine, outcome: OversizedOutcome) => void },
  ) {
    this.#child = child;
    this.#maxMessageBytes = options.maxMessageBytes;
    this.#onOversized = options.onOversized;
    this.#framer = createLineFramer({
      maxLineBytes: options.maxMessageBytes,
      onLine: (pieces) => this.#deliver(decodeLine(pieces)),
      onOversized: (line) => this.#refuse(line),
    });
  }

  async start(): Promise<void> {
    const child = this.#child;
    child.stdout?.on('data', (chunk: Buffer) => this.#framer.push(chunk));
    child.stdin?.on('error', (error) => this.onerror?.(error));
    child.on('error', (error) => {
      this.onerror?.(error);
      this.#finish();
    });
    child.on('exit', () => this.#finish());
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#child.stdin;
    if (this.#closed || !stdin || stdin.destroyed)
      return Promise.reject(new Error('the server process is not running'));
    if ('method' in message) {
      if ('id' in message && message.id !== undefined) this.#waiting.add(message.id);
      // A cancelled request may never be answered: it is no longer waited for.
      else if (message.method === 'notifications/cancelled') {
        const cancelled = (message.params as { requestId?: string | number } | undefined)?.requestId;
        if (cancelled !== undefined) this.#waiting.delete(cancelled);
      }
    }
    // Messages sent while the event loop handles one round of input (several clients' requests
    // arriving together) leave in one write: one system call and one wake-up of the server instead
    // of one per message. Order is kept, and nothing waits longer than the end of this round.
    if (!this.#batch) {
      this.#batch = { text: '', settled: [] };
      setImmediate(() => this.#flush());
    }
    this.#batch.text += serializeMessage(message);
    return new Promise((resolve, reject) => this.#batch?.settled.push({ resolve, reject }));
  }

  #flush(): void {
    const batch = this.#batch;
    this.#batch = undefined;
    if (!batch) return;
    const stdin = this.#child.stdin;
    if (this.#closed || !stdin || stdin.destroyed) {
      for (const { reject } of batch.settled) reject(new Error('the server process is not running'));
      return;
    }
    const done = () => {
      for (const { resolve } of batch.settled) resolve();
    };
    if (stdin.write(batch.text)) done();
    else stdin.once('drain', done);
  }

  async close(): Promise<void> {
    this.#child.stdin?.end();
    this.#finish();
  }

  #deliver(line: string): void {
    if (line.length === 0) return;
    let message: JSONRPCMessage;
    try {
      message = deserializeMessage(line);
    } catch (error) {
      // A line that is not JSON-RPC (a server printing to stdout) is reported, not fatal.
      this.onerror?.(error as Error);
      return;
    }
    if (!('method' in message) && 'id' in message && message.id !== undefined) this.#waiting.delete(message.id);
    deliverInOrder(this.onmessage, message);
  }

  #refuse(line: OversizedLine): void {
    const limit = `above the satellite's limit of ${formatBytes(this.#maxMessageBytes)} per message (MCP_MAX_MESSAGE_BYTES)`;
    if (line.kind === 'other') {
      // Not JSON-RPC (a server printing to stdout): nobody waits for it.
      this.#onOversized?.(line, 'not_json_rpc');
      return;
    }
    if (line.kind === 'server_message') {
      // A request or notification from the server. A request is answered with the error, so the server
      // is not left waiting; a notification is only dropped.
      this.#onOversized?.(line, 'server_message');
      if (line.id !== undefined) {
        void this.send({
          jsonrpc: '2.0',
          id: line.id,
          error: { code: messageTooLargeCode, message: `the request is ${formatBytes(line.bytes)}, ${limit}` },
        }).catch(() => {});
      }
      return;
    }
    const id =
      line.id !== undefined
        ? line.id
        : this.#waiting.size === 1
          ? (this.#waiting.values().next().value as string | number)
          : undefined;
    if (id === undefined || !this.#waiting.has(id)) {
      this.#onOversized?.(line, 'unmatched');
      return;
    }
    this.#onOversized?.(line, 'answered');
    this.#waiting.delete(id);
    deliverInOrder(this.onmessage, new MessageTooLargeError(line.bytes, this.#maxMessageBytes).toResponse(id));
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#framer.clear();
    this.#waiting.clear();
    this.onclose?.();
  }
}

/** A line's text from the pieces it arrived in; a trailing `\r` (CRLF line ends) is not part of it. */
function decodeLine(pieces: readonly Buffer[]): string {
  let text: string;
  if (pieces.length === 1) text = (pieces[0] as Buffer).toString('utf8');
  else {
    // Piece by piece: a character cut between two chunks is joined, and no whole-line copy is made.
    const decoder = new StringDecoder('utf8');
    text = pieces.map((piece) => decoder.write(piece)).join('') + decoder.end();
  }
  return text.endsWith('\r') ? text.slice(0, -1) : text;
}
