/**
 * Request headers the MCP transport sets itself and an installation's headers may not: sent in their
 * place they would break the protocol (a wrong session id, protocol version or content type) or the
 * HTTP framing (length, encoding, connection). Every header of the MCP protocol starts with `Mcp-`, so
 * that prefix is the protocol's as a whole. Authorization is not among them: it is how a static
 * credential is sent, and a server behind OAuth gets its token in place of it.
 */
const ownedNames = new Set([
  'accept',
  'accept-encoding',
  'connection',
  'content-encoding',
  'content-length',
  'content-type',
  'expect',
  'host',
  'keep-alive',
  'last-event-id',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);
const ownedPrefix = 'mcp-';

/** Whether the transport owns this header name (compared case-insensitively, as HTTP does). */
export function isTransportOwnedHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return ownedNames.has(lower) || lower.startsWith(ownedPrefix);
}
