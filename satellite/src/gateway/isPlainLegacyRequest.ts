/** The 2025 (and 2024) revisions a legacy client names in its `MCP-Protocol-Version` header. */
export const legacyVersions = new Set(['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05']);

/** The only members a JSON-RPC request may have (the SDK's request schema is strict). */
const requestKeys = new Set(['jsonrpc', 'id', 'method', 'params']);

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * Recognises, without the SDK's schema checks, the common request of a 2025 session: a POSTed
 * JSON-RPC request with no `_meta` at all and at most a 2025 version header. For such a request
 * the SDK's classification can only answer "legacy" (no envelope claim, no modern header, a valid
 * request shape), yet it finds that out by running three schema parses, two of them failing,
 * which costs a legacy call more than the rest of its routing. Anything else, or anything in
 * doubt, answers false and is classified by the SDK as before: false means "ask the SDK", never
 * "modern".
 */
export function isPlainLegacyRequest(request: Request, body: unknown): boolean {
  if (request.method !== 'POST' || !isPlainObject(body)) return false;
  for (const key in body) if (!requestKeys.has(key)) return false;
  if (body.jsonrpc !== '2.0' || typeof body.method !== 'string') return false;
  const id = body.id;
  if (typeof id !== 'string' && !(typeof id === 'number' && Number.isSafeInteger(id))) return false;
  const params = body.params;
  if (params !== undefined && (!isPlainObject(params) || '_meta' in params)) return false;
  const version = request.headers.get('mcp-protocol-version');
  return version === null || legacyVersions.has(version);
}
