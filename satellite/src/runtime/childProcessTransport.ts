import type { ChildProcess } from 'node:child_process';
import {
  deserializeMessage,
  type JSONRPCMessage,
  serializeMessage,
  type Transport,
} from '@modelcontextprotocol/client';
import { createStdioFramer, type OversizedLine } from './createStdioFramer.ts';

/** JSON-RPC error code of the answer the transport gives in place of a message it refused for its size. */
export const messageTooLargeCode = -32603;

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
  readonly #onOversized: ((line: OversizedLine, matched: boolean) => void) | undefined;
  /** Ids of requests sent and not yet answered: the only candidates an oversized answer can belong to. */
  readonly #waiting = new Set<string | number>();
  #closed = false;

  constructor(
    child: ChildProcess,
    options: { maxMessageBytes: number; onOversized?: (line: OversizedLine, matched: boolean) => void },
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
    this.onmessage?.(message);
  }

  #refuse(line: OversizedLine): void {
    const id =
      line.hasMethod || line.id !== undefined
        ? line.id
        : this.#waiting.size === 1
          ? (this.#waiting.values().next().value as string | number)
          : undefined;
    const matched = !line.hasMethod && id !== undefined && this.#waiting.has(id);
    this.#onOversized?.(line, matched);
    if (!matched || id === undefined) return;
    this.#waiting.delete(id);
    const data: MessageTooLargeData = {
      reason: 'message_too_large',
      bytes: line.bytes,
      max_bytes: this.#maxMessageBytes,
    };
    this.onmessage?.({
      jsonrpc: '2.0',
      id,
      error: {
        code: messageTooLargeCode,
        message: `the server's answer is ${formatBytes(line.bytes)}, above the satellite's limit of ${formatBytes(this.#maxMessageBytes)} per message (MCP_MAX_MESSAGE_BYTES)`,
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
