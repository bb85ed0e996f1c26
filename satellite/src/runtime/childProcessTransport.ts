import type { ChildProcess } from 'node:child_process';
import {
  deserializeMessage,
  type JSONRPCMessage,
  serializeMessage,
  type Transport,
} from '@modelcontextprotocol/client';
import { createStdioFramer, type OversizedLine } from './createStdioFramer.ts';
import { deliverInOrder } from './withOrderedDelivery.ts';

/** JSON-RPC error code of the answer the transport gives in place of a message it refused for its size. */
export const messageTooLargeCode = -32603;

/**
 * What became of a refused line: the request it answered failed with the limit (`answered`), it came
 * from the server itself (`server_message`: a request of its own was answered with the error, a
 * notification dropped), it was not JSON-RPC (`not_json_rpc`: dropped), or it was an answer that
 * matched no request (`unmatched`), so a request may wait forever.
 */
export type OversizedOutcome = 'answered' | 'server_message' | 'unmatched' | 'not_json_rpc';

/** Marks the error data of a refused message, so callers tell it from a server's own errors. */
export type MessageTooLargeData = { reason: 'message_too_large'; bytes: number; max_bytes: number };

export function isMessageTooLargeData(data: unknown): data is MessageTooLargeData {
  return typeof data === 'object' && data !== null && (data as { reason?: unknown }).reason === 'message_too_large';
}

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
  readonly #framer: ReturnType<typeof createStdioFramer>;
  readonly #maxMessageBytes: number;
  readonly #onOversized: ((line: OversizedLine, outcome: OversizedOutcome) => void) | undefined;
  /** Ids of requests sent and not yet answered: the only candidates an oversized answer can belong to. */
  readonly #waiting = new Set<string | number>();
  #closed = false;

  constructor(
    child: ChildProcess,
    options: { maxMessageBytes: number; onOversized?: (line: OversizedLine, outcome: OversizedOutcome) => void },
  ) {
    this.#child = child;
    this.#maxMessageBytes = options.maxMessageBytes;
    this.#onOversized = options.onOversized;
    this.#framer = createStdioFramer({
      maxLineBytes: options.maxMessageBytes,
      onLine: (line) => this.#deliver(line),
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
    return new Promise((resolve, reject) => {
      const stdin = this.#child.stdin;
      if (this.#closed || !stdin || stdin.destroyed) {
        reject(new Error('the server process is not running'));
        return;
      }
      if ('method' in message) {
        if ('id' in message && message.id !== undefined) this.#waiting.add(message.id);
        // A cancelled request may never be answered: it is no longer waited for.
        else if (message.method === 'notifications/cancelled') {
          const cancelled = (message.params as { requestId?: string | number } | undefined)?.requestId;
          if (cancelled !== undefined) this.#waiting.delete(cancelled);
        }
      }
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', () => resolve());
    });
  }

  async close(): Promise<void> {
    this.#child.stdin?.end();
    this.#finish();
  }

  #deliver(line: string): void {
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
    const data: MessageTooLargeData = {
      reason: 'message_too_large',
      bytes: line.bytes,
      max_bytes: this.#maxMessageBytes,
    };
    deliverInOrder(this.onmessage, {
      jsonrpc: '2.0',
      id,
      error: {
        code: messageTooLargeCode,
        message: `the server's answer is ${formatBytes(line.bytes)}, ${limit}`,
        data,
      },
    });
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#framer.clear();
    this.#waiting.clear();
    this.onclose?.();
  }
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${bytes} bytes`;
}
