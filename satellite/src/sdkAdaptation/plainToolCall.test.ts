import type { IncomingHttpHeaders } from 'node:http';
import { describe, expect, it } from 'vitest';
import { readPlainLegacyToolCall, readPlainModernToolCall } from './plainToolCall.ts';

const envelope = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'agent', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const headers: IncomingHttpHeaders = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2026-07-28',
  'mcp-method': 'tools/call',
  'mcp-name': 'execute_mcp_tool',
};
const call = (params: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id: 7,
  method: 'tools/call',
  params: { name: 'execute_mcp_tool', arguments: { tool_path: 'a:b', arguments: {} }, _meta: envelope, ...params },
  ...extra,
});

describe('readPlainModernToolCall', () => {
  it('recognises the plain tool call of a 2026-07-28 client, as the v2 client sends it', () => {
    expect(readPlainModernToolCall(headers, call())).toEqual({
      id: 7,
      tool: 'execute_mcp_tool',
      arguments: { tool_path: 'a:b', arguments: {} },
    });
    expect(
      readPlainModernToolCall(
        { ...headers, 'mcp-name': 'discover_mcp_tools', 'content-type': 'application/json; charset=utf-8' },
        call({ name: 'discover_mcp_tools', arguments: { query: 'x' } }, { id: 'req-1' }),
      ),
    ).toMatchObject({ id: 'req-1', tool: 'discover_mcp_tools' });
    const withoutClientInfo = { ...envelope } as Record<string, unknown>;
    delete withoutClientInfo['io.modelcontextprotocol/clientInfo'];
    expect(readPlainModernToolCall(headers, call({ _meta: withoutClientInfo }))).toBeDefined();
  });

  // Each of these leaves the request to the SDK: it may be valid (and is then served the long way)
  // or not (and the SDK refuses it); the short path never answers what it is not sure of.
  const leftToTheSdk: [string, IncomingHttpHeaders, unknown][] = [
    [
      'a client that declared capabilities (it may be asked for input)',
      headers,
      call({ _meta: { ...envelope, 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } } }),
    ],
    ['a progress token', headers, call({ _meta: { ...envelope, progressToken: 1 } })],
    ['a retry carrying input responses', headers, call({ inputResponses: {}, requestState: 's' })],
    [
      'another revision',
      { ...headers, 'mcp-protocol-version': '2027-01-01' },
      call({ _meta: { ...envelope, 'io.modelcontextprotocol/protocolVersion': '2027-01-01' } }),
    ],
    ['a header naming another revision than the body', { ...headers, 'mcp-protocol-version': '2025-11-25' }, call()],
    ['no protocol version header', { ...headers, 'mcp-protocol-version': undefined }, call()],
    ['no Mcp-Method header', { ...headers, 'mcp-method': undefined }, call()],
    ['an Accept without the event stream (refused with 406)', { ...headers, accept: 'application/json' }, call()],
    ['no Accept (refused with 406)', { ...headers, accept: undefined }, call()],
    ['an Mcp-Name that differs from the body', { ...headers, 'mcp-name': 'discover_mcp_tools' }, call()],
    ['a session id', { ...headers, 'mcp-session-id': 'abc' }, call()],
    ['a body that is not JSON', { ...headers, 'content-type': 'text/plain' }, call()],
    ['another tool', { ...headers, 'mcp-name': 'echo' }, call({ name: 'echo' })],
    ['another method', { ...headers, 'mcp-method': 'tools/list' }, { ...call(), method: 'tools/list' }],
    ['no envelope', headers, call({ _meta: undefined })],
    [
      'no capabilities in the envelope',
      headers,
      call({ _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } }),
    ],
    [
      'a client info with more than a name, version and title',
      headers,
      call({
        _meta: {
          ...envelope,
          'io.modelcontextprotocol/clientInfo': { name: 'a', version: '1', websiteUrl: 'https://example.com' },
        },
      }),
    ],
    [
      'a client info without a version',
      headers,
      call({ _meta: { ...envelope, 'io.modelcontextprotocol/clientInfo': { name: 'a' } } }),
    ],
    ['arguments that are not an object', headers, call({ arguments: ['a'] })],
    ['an extra member in the message', headers, call({}, { extra: 1 })],
    ['a notification (no id)', headers, { ...call(), id: undefined }],
    ['a fractional id', headers, call({}, { id: 1.5 })],
    ['a batch', headers, [call()]],
    ['a response', headers, { jsonrpc: '2.0', id: 1, result: {} }],
    [
      'a repeated header',
      { ...headers, 'mcp-name': ['execute_mcp_tool', 'execute_mcp_tool'] as unknown as string },
      call(),
    ],
  ];
  it.each(leftToTheSdk)('leaves %s to the SDK', (_, requestHeaders, body) => {
    expect(readPlainModernToolCall(requestHeaders, body)).toBeUndefined();
  });
});

const sessionHeaders: IncomingHttpHeaders = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-11-25',
  'mcp-session-id': 'session-1',
};
const legacyCall = (params: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id: 3,
  method: 'tools/call',
  params: { name: 'discover_mcp_tools', arguments: { query: 'files' }, ...params },
});

describe('readPlainLegacyToolCall', () => {
  it('recognises the plain tool call of a 2025 session, with or without a version header', () => {
    expect(readPlainLegacyToolCall(sessionHeaders, legacyCall())).toEqual({
      id: 3,
      tool: 'discover_mcp_tools',
      arguments: { query: 'files' },
      sessionId: 'session-1',
    });
    expect(
      readPlainLegacyToolCall({ ...sessionHeaders, 'mcp-protocol-version': undefined }, legacyCall()),
    ).toBeDefined();
  });

  const leftToTheSdk: [string, IncomingHttpHeaders, unknown][] = [
    ['no session id (initialize or an error)', { ...sessionHeaders, 'mcp-session-id': undefined }, legacyCall()],
    ['any _meta (a progress token, or a modern envelope)', sessionHeaders, legacyCall({ _meta: { progressToken: 1 } })],
    ['a client that does not accept an event stream', { ...sessionHeaders, accept: 'application/json' }, legacyCall()],
    ['a client that does not accept JSON', { ...sessionHeaders, accept: 'text/event-stream' }, legacyCall()],
    ['a body that is not JSON', { ...sessionHeaders, 'content-type': 'text/plain' }, legacyCall()],
    ['a modern version header', { ...sessionHeaders, 'mcp-protocol-version': '2026-07-28' }, legacyCall()],
    ['an unknown version header', { ...sessionHeaders, 'mcp-protocol-version': '1999-01-01' }, legacyCall()],
    ['modern standard headers', { ...sessionHeaders, 'mcp-method': 'tools/call' }, legacyCall()],
    ['another tool', sessionHeaders, legacyCall({ name: 'echo' })],
    ['other params', sessionHeaders, legacyCall({ task: { ttl: 1 } })],
    ['a batch', sessionHeaders, [legacyCall()]],
    ['a notification', sessionHeaders, { ...legacyCall(), id: undefined }],
  ];
  it.each(leftToTheSdk)('leaves %s to the SDK', (_, requestHeaders, body) => {
    expect(readPlainLegacyToolCall(requestHeaders, body)).toBeUndefined();
  });
});
