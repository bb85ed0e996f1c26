import type { IncomingHttpHeaders } from 'node:http';
import { isLegacyRequest } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { readRequestGeneration } from './requestGeneration.ts';

const envelope = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' };
const call = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'execute_mcp_tool', arguments: {} } };
const modernCall = { ...call, params: { ...call.params, _meta: envelope } };

/** Requests around the edges of both answers; the SDK's own predicate is the judge of each. */
const cases: [string, string, unknown, IncomingHttpHeaders][] = [
  ['a 2025 call', 'POST', call, {}],
  ['a 2025 call with its header', 'POST', call, { 'mcp-protocol-version': '2025-11-25' }],
  ['a 2026-07-28 call', 'POST', modernCall, { 'mcp-protocol-version': '2026-07-28' }],
  ['a 2026-07-28 call without its header', 'POST', modernCall, {}],
  ['an envelope claiming another revision', 'POST', { ...call, params: { _meta: { ...envelope, x: 1 } } }, {}],
  ['initialize', 'POST', { jsonrpc: '2.0', id: 1, method: 'initialize', params: { _meta: envelope } }, {}],
  ['a response', 'POST', { jsonrpc: '2.0', id: 1, result: { _meta: envelope } }, {}],
  ['a progress token', 'POST', { ...call, params: { _meta: { progressToken: 1 } } }, {}],
  ['a modern header on a 2025 body', 'POST', call, { 'mcp-protocol-version': '2026-07-28' }],
  ['a repeated header', 'POST', call, { 'mcp-protocol-version': ['2025-11-25', '2025-11-25'] as unknown as string }],
  ['a batch', 'POST', [call], {}],
  ['a GET', 'GET', undefined, {}],
];

function webRequest(method: string, headers: IncomingHttpHeaders): Request {
  const web = new Headers({ 'content-type': 'application/json' });
  for (const [name, value] of Object.entries(headers)) {
    for (const one of Array.isArray(value) ? value : [value]) if (one !== undefined) web.append(name, one);
  }
  return new Request('http://127.0.0.1/mcp', { method, headers: web });
}

describe('readRequestGeneration', () => {
  it.each(cases)('never contradicts the SDK: %s', async (_, method, body, headers) => {
    const ours = readRequestGeneration(method, headers, body);
    const sdkSaysLegacy = await isLegacyRequest(webRequest(method, headers), body);
    if (ours === 'legacy') expect(sdkSaysLegacy).toBe(true);
    if (ours === 'modern') expect(sdkSaysLegacy).toBe(false);
  });

  it('settles the common requests of each generation without the SDK', () => {
    expect(readRequestGeneration('POST', {}, call)).toBe('legacy');
    expect(readRequestGeneration('POST', { 'mcp-protocol-version': '2026-07-28' }, modernCall)).toBe('modern');
    expect(readRequestGeneration('GET', {}, undefined)).toBe('undecided');
    expect(readRequestGeneration('POST', {}, [call])).toBe('undecided');
  });
});
