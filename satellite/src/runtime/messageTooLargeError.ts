/** JSON-RPC error code given to a request whose answer was refused for its size. */
export const messageTooLargeCode = -32603;

/** Marks the error data of a refused answer, so callers tell it from a server's own errors. */
export type MessageTooLargeData = { reason: 'message_too_large'; bytes: number; max_bytes: number };

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${bytes} bytes`;
}

/**
 * An answer from an upstream server longer than MCP_MAX_MESSAGE_BYTES: the satellite drops it as it
 * streams in and fails the request it answered with this, over stdio and HTTP alike.
 */
export class MessageTooLargeError extends Error {
  readonly data: MessageTooLargeData;
  /** `bytes` is the whole answer, or with `cutShort` what had arrived when reading stopped. */
  constructor(bytes: number, maxBytes: number, options: { cutShort?: boolean } = {}) {
    super(
      `the server's answer is ${options.cutShort ? 'more than ' : ''}${formatBytes(options.cutShort ? maxBytes : bytes)}, above the satellite's limit of ${formatBytes(maxBytes)} per message (MCP_MAX_MESSAGE_BYTES)`,
    );
    this.name = 'MessageTooLargeError';
    this.data = { reason: 'message_too_large', bytes, max_bytes: maxBytes };
  }

  /** The JSON-RPC error answering request `id` in place of the refused message. */
  toResponse(id: string | number) {
    return {
      jsonrpc: '2.0' as const,
      id,
      error: { code: messageTooLargeCode, message: this.message, data: this.data },
    };
  }
}

/** The message of a refused answer somewhere in an error's causes (as the SDK wraps it), if there is one. */
export function messageTooLargeIn(error: unknown): string | undefined {
  let cause: unknown = error;
  for (let depth = 0; depth < 6 && cause; depth++) {
    const { data, message } = cause as { data?: unknown; message?: unknown };
    if (typeof data === 'object' && data !== null && (data as { reason?: unknown }).reason === 'message_too_large') {
      return typeof message === 'string' ? message : undefined;
    }
    cause = (cause as { cause?: unknown }).cause;
  }
  return undefined;
}
