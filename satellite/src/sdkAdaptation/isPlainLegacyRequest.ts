import { isPlainObject, isStrictRequest } from '../gateway/jsonRpcShape.ts';
import { legacyProtocolVersionSet } from './protocolVersions.ts';

/**
 * Recognises, without the SDK's schema checks, the common request of a 2025 session: a POSTed
 * JSON-RPC request with no `_meta` at all and at most a 2025 version header. For such a request
 * the SDK's classification can only answer "legacy" (no envelope claim, no modern header, a valid
 * request shape), yet it finds that out by running three schema parses, two of them failing,
 * which costs a legacy call more than the rest of its routing. Anything else, or anything in
 * doubt, answers false and is classified by the SDK as before: false means "ask the SDK", never
 * "modern". `version` is the `MCP-Protocol-Version` header as received (repeated fields joined).
 */
export function isPlainLegacyRequest(method: string, version: string | null | undefined, body: unknown): boolean {
  if (method !== 'POST' || !isStrictRequest(body)) return false;
  const params = body.params;
  if (params !== undefined && (!isPlainObject(params) || '_meta' in params)) return false;
  return version === null || version === undefined || legacyProtocolVersionSet.has(version);
}
