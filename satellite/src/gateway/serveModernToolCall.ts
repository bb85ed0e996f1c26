import type { IncomingHttpHeaders } from 'node:http';
import {
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  isJsonContentType,
  PROTOCOL_VERSION_META_KEY,
  ProtocolErrorCode,
  SERVER_INFO_META_KEY,
  specTypeSchemas,
} from '@modelcontextprotocol/server';
import { executeWithoutInput, satelliteServerInfo, type ToolHandlers, type ToolScope } from './createMetaToolServer.ts';

/**
 * The common request of a 2026-07-28 client, answered without building an MCP server for it.
 *
 * A modern request is served by the SDK's per-request handler, which classifies the message,
 * builds a fresh server, connects a one-exchange transport, dispatches, encodes and tears it all
 * down again: on a relayed call that is about a quarter of the satellite's work, more than the
 * relay itself. The call that dominates real traffic is plain: `tools/call` of one of the two
 * meta-tools, a well-formed envelope with no capabilities (so the server can never ask this client
 * for input) and no progress token, the standard headers agreeing with the body. This module
 * recognises exactly that request and answers it as the SDK would: the same handler, the same
 * result encoding (`resultType`, `serverInfo` in `_meta`), the same JSON body. Anything else, or
 * anything in doubt, is left to the SDK, which stays the one authority on the protocol; a test
 * sends the same requests down both paths and compares the answers.
 */

/** The revision this path answers; any other is the SDK's to accept or refuse. */
const revision = '2026-07-28';
const metaToolNames = new Set(['discover_mcp_tools', 'execute_mcp_tool']);
const requestKeys = new Set(['jsonrpc', 'id', 'method', 'params']);
const paramKeys = new Set(['name', 'arguments', '_meta']);
const envelopeKeys = new Set([PROTOCOL_VERSION_META_KEY, CLIENT_INFO_META_KEY, CLIENT_CAPABILITIES_META_KEY]);
const clientInfoKeys = new Set(['name', 'version', 'title']);

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

function hasOnlyKeys(value: Record<string, unknown>, allowed: ReadonlySet<string>): boolean {
  for (const key in value) if (!allowed.has(key)) return false;
  return true;
}

function isEmptyObject(value: unknown): boolean {
  if (!isPlainObject(value)) return false;
  for (const _ in value) return false;
  return true;
}

/** A client's identity as the envelope may carry it: a name and a version, perhaps a title. */
function isPlainClientInfo(value: unknown): boolean {
  if (value === undefined) return true;
  if (!isPlainObject(value) || !hasOnlyKeys(value, clientInfoKeys)) return false;
  if (typeof value.name !== 'string' || typeof value.version !== 'string') return false;
  return value.title === undefined || typeof value.title === 'string';
}

/** The one header value of `name`, or undefined when it is absent or repeated. */
function single(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' ? value : undefined;
}

export type PlainModernToolCall = {
  id: string | number;
  tool: 'discover_mcp_tools' | 'execute_mcp_tool';
  arguments: Record<string, unknown> | undefined;
};

/**
 * The plain modern tool call in a POST, or undefined for anything else. Undefined means "ask the
 * SDK", never "refuse": every request this rejects is served (or refused) exactly as before.
 */
export function readPlainModernToolCall(headers: IncomingHttpHeaders, body: unknown): PlainModernToolCall | undefined {
  if (!isPlainObject(body) || !hasOnlyKeys(body, requestKeys)) return undefined;
  if (body.jsonrpc !== '2.0' || body.method !== 'tools/call') return undefined;
  const id = body.id;
  if (typeof id !== 'string' && !(typeof id === 'number' && Number.isSafeInteger(id))) return undefined;
  const params = body.params;
  if (!isPlainObject(params) || !hasOnlyKeys(params, paramKeys)) return undefined;
  const tool = params.name;
  if (typeof tool !== 'string' || !metaToolNames.has(tool)) return undefined;
  const args = params.arguments;
  if (args !== undefined && !isPlainObject(args)) return undefined;
  const meta = params._meta;
  if (!isPlainObject(meta) || !hasOnlyKeys(meta, envelopeKeys)) return undefined;
  if (meta[PROTOCOL_VERSION_META_KEY] !== revision) return undefined;
  // No capabilities: nothing the server does during the call can need this client.
  if (!isEmptyObject(meta[CLIENT_CAPABILITIES_META_KEY])) return undefined;
  if (!isPlainClientInfo(meta[CLIENT_INFO_META_KEY])) return undefined;
  // The standard headers, exactly as the body names them (the SDK also accepts encoded or padded
  // forms of Mcp-Name; those take its path).
  if (!isJsonContentType(single(headers, 'content-type'))) return undefined;
  if (single(headers, 'mcp-protocol-version') !== revision) return undefined;
  if (single(headers, 'mcp-method') !== 'tools/call' || single(headers, 'mcp-name') !== tool) return undefined;
  if (headers['mcp-session-id'] !== undefined) return undefined;
  return { id, tool: tool as PlainModernToolCall['tool'], arguments: args };
}

/** Keys that make a tool result something other than a finished call (tasks, rounds of input). */
const foreignResultKeys = ['task', 'inputRequests', 'requestState'];

/**
 * A handler's result as the 2026-07-28 wire carries it: checked against the result schema (a
 * result without content gains an empty list), marked complete, the server named in its `_meta`
 * unless the result names one already. What the handler returned is never rewritten otherwise.
 */
function encodeResult(result: CallToolResult): { result: Record<string, unknown> } | { error: string } {
  let value: Record<string, unknown> = result;
  if (value.content === undefined && !foreignResultKeys.some((key) => key in value)) value = { ...value, content: [] };
  const checked = specTypeSchemas.CallToolResult['~standard'].validate(value);
  if (checked.issues) {
    return { error: `Invalid tools/call result: ${checked.issues.map((issue) => issue.message).join('; ')}` };
  }
  let encoded = checked.value as Record<string, unknown>;
  if (encoded.resultType === undefined) encoded = { ...encoded, resultType: 'complete' };
  const meta = encoded._meta;
  if (meta === undefined) encoded = { ...encoded, _meta: { [SERVER_INFO_META_KEY]: satelliteServerInfo } };
  else if (isPlainObject(meta) && meta[SERVER_INFO_META_KEY] === undefined) {
    encoded = { ...encoded, _meta: { ...meta, [SERVER_INFO_META_KEY]: satelliteServerInfo } };
  }
  return { result: encoded };
}

/** The JSON-RPC error body the SDK gives a tools/call whose handler threw. */
function errorBody(id: string | number, error: unknown): string {
  const thrown = error as { code?: unknown; message?: unknown; data?: unknown };
  const code = Number.isSafeInteger(thrown?.code) ? (thrown.code as number) : ProtocolErrorCode.InternalError;
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    error: {
      // -32002 (resource not found) is carried as invalid params on this revision.
      code: code === -32002 ? ProtocolErrorCode.InvalidParams : code,
      message: typeof thrown?.message === 'string' ? thrown.message : 'Internal error',
      ...(thrown?.data !== undefined ? { data: thrown.data } : {}),
    },
  });
}

/**
 * Runs the call and answers with the JSON body of a 200 response. `signal` is the client's stream:
 * its going away cancels the upstream call, as it does on the SDK's path.
 */
export async function answerModernToolCall(
  call: PlainModernToolCall,
  handlers: ToolHandlers,
  scope: ToolScope,
  signal: AbortSignal,
): Promise<string> {
  let result: CallToolResult;
  try {
    result =
      call.tool === 'discover_mcp_tools'
        ? handlers.discover(call.arguments, scope)
        : await executeWithoutInput(handlers, call.arguments, scope, {}, { signal, onProgress: undefined });
  } catch (error) {
    return errorBody(call.id, error);
  }
  const encoded = encodeResult(result);
  if ('error' in encoded) {
    return JSON.stringify({
      jsonrpc: '2.0',
      id: call.id,
      error: { code: ProtocolErrorCode.InvalidParams, message: encoded.error },
    });
  }
  return JSON.stringify({ result: encoded.result, jsonrpc: '2.0', id: call.id });
}
