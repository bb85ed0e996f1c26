import type { IncomingHttpHeaders } from 'node:http';
import { PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/server';
import { isPlainObject } from '../gateway/jsonRpcShape.ts';
import { isPlainLegacyRequest } from './isPlainLegacyRequest.ts';

/**
 * Which protocol generation a request to `/mcp` belongs to, as far as it can be told without the SDK:
 * `legacy` (a 2025 session's plain request), `modern` (it claims the 2026-07-28 envelope, which the SDK
 * never serves as legacy), or `undecided` (the SDK's `isLegacyRequest` decides). The HTTP layer works it
 * out once per request and hands it to the replica forwarder, the plain tool call and the endpoint,
 * which would otherwise each read the body again to find out.
 */
export type RequestGeneration = 'legacy' | 'modern' | 'undecided';

export function readRequestGeneration(method: string, headers: IncomingHttpHeaders, body: unknown): RequestGeneration {
  const version = headers['mcp-protocol-version'];
  // A repeated field reads as the web Request reads it (joined), which no revision matches.
  if (isPlainLegacyRequest(method, Array.isArray(version) ? version.join(', ') : version, body)) return 'legacy';
  if (claimsModernEnvelope(method, body)) return 'modern';
  return 'undecided';
}

/**
 * A POST whose JSON-RPC message carries the per-request envelope claim (`_meta` naming a protocol
 * version), other than `initialize` and other than a response: the SDK never classifies such a
 * message as legacy (it serves it as 2026-07-28 or refuses it on the modern side).
 */
function claimsModernEnvelope(method: string, body: unknown): boolean {
  if (method !== 'POST' || !isPlainObject(body)) return false;
  if ('result' in body || 'error' in body || body.method === 'initialize') return false;
  const params = body.params;
  if (!isPlainObject(params) || !isPlainObject(params._meta)) return false;
  return PROTOCOL_VERSION_META_KEY in params._meta;
}
