/**
 * The shape checks the gateway's shortcuts make on a parsed JSON-RPC body before the SDK would, so
 * each shortcut recognises requests by the same rules.
 */

/** The only members a JSON-RPC request may have (the SDK's request schema is strict). */
export const requestKeys: ReadonlySet<string> = new Set(['jsonrpc', 'id', 'method', 'params']);

export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

export function hasOnlyKeys(value: Record<string, unknown>, allowed: ReadonlySet<string>): boolean {
  for (const key in value) if (!allowed.has(key)) return false;
  return true;
}

/** An id a request may carry: a string or a safe integer (the SDK refuses fractions). */
export function isRequestId(value: unknown): value is string | number {
  return typeof value === 'string' || (typeof value === 'number' && Number.isSafeInteger(value));
}

/** A JSON-RPC 2.0 request (not a notification, response or batch) with nothing but its four members. */
export function isStrictRequest(
  body: unknown,
): body is { jsonrpc: '2.0'; id: string | number; method: string; params?: unknown } {
  return (
    isPlainObject(body) &&
    hasOnlyKeys(body, requestKeys) &&
    body.jsonrpc === '2.0' &&
    typeof body.method === 'string' &&
    isRequestId(body.id)
  );
}
