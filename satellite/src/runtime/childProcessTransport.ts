import type { ChildProcess } from 'node:child_process';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/**
 * MCP over the stdin/stdout of a child the process manager spawned itself. The SDK's stdio client
 * transport spawns its own child, which would take away the process group, the environment and the
 * exit handling the manager needs; this one only frames messages.
 */
export class ChildProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly #child: ChildProcess;
  readonly #buffer = new ReadBuffer();
  #closed = false;

  constructor(child: ChildProcess) {
    this.#child = child;
  }

  async start(): Promise<void> {
    const child = this.#child;
    child.stdout?.on('data', (chunk: Buffer) => {
      this.#buffer.append(chunk);
      for (;;) {
        let message: JSONRPCMessage | null;
        try {
          message = this.#buffer.readMessage();
        } catch (error) {
          // A line that is not JSON-RPC (a server printing to stdout) is reported, not fatal.
          this.onerror?.(error as Error);
          continue;
        }
        if (message === null) break;
        this.onmessage?.(message);
      }
    });
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
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', () => resolve());
    });
  }

  async close(): Promise<void> {
    this.#child.stdin?.end();
    this.#finish();
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#buffer.clear();
    this.onclose?.();
  }
}
