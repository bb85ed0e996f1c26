import { isLegacyRequest } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { isPlainLegacyRequest } from './isPlainLegacyRequest.ts';

const request = (headers: Record<string, string> = {}, method = 'POST') =>
  new Request('http://127.0.0.1/mcp', { method, headers: { 'content-type': 'application/json', ...headers } });

/** The shortcut, given what the HTTP layer gives it: the method, the version header and the body. */
const ours_ = (r: Request, body: unknown) =>
  isPlainLegacyRequest(r.method, r.headers.get('mcp-protocol-version'), body);

const call = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'execute_mcp_tool', arguments: {} } };

/** Bodies and headers around the shortcut's edges; the SDK's own predicate is the judge. */
const cases: [string, unknown, Record<string, string>?][] = [
  ['a 2025 tools/call', call],
  ['with its 2025 header', call, { 'mcp-protocol-version': '2025-11-25' }],
  ['with a 2025-03-26 header', call, { 'mcp-protocol-version': '2025-03-26' }],
  ['a string id', { ...call, id: 'a' }],
  ['no params', { jsonrpc: '2.0', id: 1, method: 'tools/list' }],
  ['initialize', { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25' } }],
  ['a modern header', call, { 'mcp-protocol-version': '2026-07-28' }],
  ['a modern header with spaces', call, { 'mcp-protocol-version': ' 2026-07-28 ' }],
  ['an unknown header version', call, { 'mcp-protocol-version': '2027-01-01' }],
  [
    'an envelope claim',
    { ...call, params: { ...call.params, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } } },
  ],
  ['a progress token', { ...call, params: { ...call.params, _meta: { progressToken: 1 } } }],
  ['a bad progress token', { ...call, params: { ...call.params, _meta: { progressToken: {} } } }],
  ['a fractional id', { ...call, id: 1.5 }],
  ['a null id', { ...call, id: null }],
  ['an extra member', { ...call, extra: true }],
  ['a wrong jsonrpc', { ...call, jsonrpc: '1.0' }],
  ['params as an array', { ...call, params: [1] }],
  ['params null', { ...call, params: null }],
  ['a notification', { jsonrpc: '2.0', method: 'notifications/initialized' }],
  ['a response', { jsonrpc: '2.0', id: 1, result: {} }],
  ['a batch', [call]],
];

describe('isPlainLegacyRequest', () => {
  it.each(cases)('never says legacy where the SDK would not: %s', async (_name, body, headers) => {
    const ours = ours_(request(headers), body);
    const sdk = await isLegacyRequest(request(headers), body);
    if (ours) expect(sdk).toBe(true);
  });

  it('recognises the plain requests of a 2025 session', () => {
    expect(ours_(request(), call)).toBe(true);
    expect(ours_(request({ 'mcp-protocol-version': '2025-06-18' }), call)).toBe(true);
    expect(ours_(request(), { jsonrpc: '2.0', id: 'x', method: 'ping' })).toBe(true);
  });

  it('leaves every other request to the SDK', () => {
    expect(ours_(request({ 'mcp-protocol-version': '2026-07-28' }), call)).toBe(false);
    expect(ours_(request(), { ...call, params: { _meta: { progressToken: 1 } } })).toBe(false);
    expect(ours_(request({}, 'GET'), undefined)).toBe(false);
  });
});
