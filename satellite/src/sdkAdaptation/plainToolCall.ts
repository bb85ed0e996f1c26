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
import {
  executeWithoutInput,
  satelliteServerInfo,
  type ToolHandlers,
  type ToolScope,
} from '../gateway/createMetaToolServer.ts';
import { hasOnlyKeys, isPlainObject, isStrictRequest } from '../gateway/jsonRpcShape.ts';
import { legacyProtocolVersionSet, modernProtocolVersion } from './protocolVersions.ts';

/**
 * The plain tool call, of either protocol generation, answered without the SDK's serving machinery.
 *
 * The SDK serves a 2026-07-28 request by classifying it, building a server and a one-exchange
 * transport for it, dispatching, encoding and tearing it all down again; a 2025 session's request
 * goes through the session transport's checks, a schema parse of the message, a web Request and an
 * event stream built and read back. On a relayed call that is most of the satellite's own work,
 * more than the relay. The call that dominates real traffic is plain: `tools/call` of one of the
 * two meta-tools, by a client the server can never ask for input during the call (it declared no
 * elicitation, sampling or roots), without a progress token, with the standard headers in order.
 * This module recognises exactly that request and answers it as the SDK would: the same handler,
 * the same result check and encoding, the same body and headers. Anything else, or anything in
 * doubt, is left to the SDK, which stays the one authority on the protocol; a test sends the same
 * requests down both paths and compares the answers.
 */

/** The revision the modern path answers; any other is the SDK's to accept or refuse. */
const modernRevision = modernProtocolVersion;
const metaToolNames = new Set(['discover_mcp_tools', 'execute_mcp_tool']);
const modernParamKeys = new Set(['name', 'arguments', '_meta']);
const legacyParamKeys = new Set(['name', 'arguments']);
const envelopeKeys = new Set([PROTOCOL_VERSION_META_KEY, CLIENT_INFO_META_KEY, CLIENT_CAPABILITIES_META_KEY]);
const clientInfoKeys = new Set(['name', 'version', 'title']);

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

/** The one value of header `name`, or undefined when it is absent or repeated. */
function single(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' ? value : undefined;
}

export type PlainToolCall = {
  id: string | number;
  tool: 'discover_mcp_tools' | 'execute_mcp_tool';
  arguments: Record<string, unknown> | undefined;
};

/**
 * A POST's `Accept` must list both answers a server may give (a JSON body or an event stream), in
 * either protocol generation; the SDK's session transport refuses anything else with 406.
 */
export function acceptsBothMediaTypes(accept: string | null | undefined): boolean {
  return !!accept && accept.includes('application/json') && accept.includes('text/event-stream');
}

/** The JSON-RPC request of a meta-tool call whose params have only `allowedParams`, or undefined. */
function readToolCall(body: unknown, allowedParams: ReadonlySet<string>) {
  if (!isStrictRequest(body) || body.method !== 'tools/call') return undefined;
  const { id, params } = body;
  if (!isPlainObject(params) || !hasOnlyKeys(params, allowedParams)) return undefined;
  const tool = params.name;
  if (typeof tool !== 'string' || !metaToolNames.has(tool)) return undefined;
  const args = params.arguments;
  if (args !== undefined && !isPlainObject(args)) return undefined;
  return { call: { id, tool: tool as PlainToolCall['tool'], arguments: args }, params };
}

/**
 * The plain 2026-07-28 tool call in a POST, or undefined for anything else. Undefined means "ask
 * the SDK", never "refuse": every request this rejects is served (or refused) exactly as before.
 */
export function readPlainModernToolCall(headers: IncomingHttpHeaders, body: unknown): PlainToolCall | undefined {
  const read = readToolCall(body, modernParamKeys);
  if (!read) return undefined;
  const meta = read.params._meta;
  if (!isPlainObject(meta) || !hasOnlyKeys(meta, envelopeKeys)) return undefined;
  if (meta[PROTOCOL_VERSION_META_KEY] !== modernRevision) return undefined;
  // No capabilities: nothing the server does during the call can need this client.
  if (!isEmptyObject(meta[CLIENT_CAPABILITIES_META_KEY])) return undefined;
  if (!isPlainClientInfo(meta[CLIENT_INFO_META_KEY])) return undefined;
  // The standard headers, exactly as the body names them (the SDK also accepts encoded or padded
  // forms of Mcp-Name; those take its path).
  if (!acceptsBothMediaTypes(single(headers, 'accept'))) return undefined;
  if (!isJsonContentType(single(headers, 'content-type'))) return undefined;
  if (single(headers, 'mcp-protocol-version') !== modernRevision) return undefined;
  if (single(headers, 'mcp-method') !== 'tools/call' || single(headers, 'mcp-name') !== read.call.tool) {
    return undefined;
  }
  if (headers['mcp-session-id'] !== undefined) return undefined;
  return read.call;
}

/**
 * The plain tool call of a 2025 session in a POST (no `_meta` at all, so no progress token), with
 * the session it names, or undefined for anything else. Whether the session exists, belongs to the
 * caller and declared no capability the call could need is for the caller to check.
 */
export function readPlainLegacyToolCall(
  headers: IncomingHttpHeaders,
  body: unknown,
): (PlainToolCall & { sessionId: string }) | undefined {
  const read = readToolCall(body, legacyParamKeys);
  if (!read) return undefined;
  const sessionId = single(headers, 'mcp-session-id');
  if (!sessionId) return undefined;
  // The session transport's own checks: both media types accepted, a JSON body, a 2025 revision.
  if (!acceptsBothMediaTypes(single(headers, 'accept'))) return undefined;
  if (!isJsonContentType(single(headers, 'content-type'))) return undefined;
  const version = headers['mcp-protocol-version'];
  if (version !== undefined && !(typeof version === 'string' && legacyProtocolVersionSet.has(version)))
    return undefined;
  if (headers['mcp-method'] !== undefined || headers['mcp-name'] !== undefined) return undefined;
  return { ...read.call, sessionId };
}

/** Keys that make a tool result something other than a finished call (tasks, rounds of input). */
const foreignResultKeys = ['task', 'inputRequests', 'requestState'];

/** The result schema, read as the SDK reads it (its errors are what an invalid result is answered with). */
const callToolResultSchema = specTypeSchemas.CallToolResult as unknown as {
  safeParse(value: unknown): { success: true; data: unknown } | { success: false; error: unknown };
};

/**
 * A handler's result as the SDK lets it out in `era`: a result without content gains an empty list
 * unless it is a task or a round of input (which then fails, as neither is a finished call), it must
 * pass the result schema, and a 2025 result's structured content must be an object (the 2025 schema
 * has no other kind; a 2026-07-28 server may send any JSON value). Nothing else is rewritten.
 */
function checkResult(
  result: CallToolResult,
  era: 'legacy' | 'modern',
): { value: Record<string, unknown> } | { error: string } {
  let value: Record<string, unknown> = result;
  if (value.content === undefined) {
    if (foreignResultKeys.some((key) => key in value)) {
      return { error: 'Invalid tools/call result: a task or input request is not a finished tool call' };
    }
    value = { ...value, content: [] };
  }
  if (era === 'legacy' && value.structuredContent !== undefined && !isPlainObject(value.structuredContent)) {
    return { error: 'Invalid tools/call result: structuredContent must be an object for this protocol revision' };
  }
  const checked = callToolResultSchema.safeParse(value);
  if (!checked.success) return { error: `Invalid tools/call result: ${String(checked.error)}` };
  return { value: checked.data as Record<string, unknown> };
}

/** A 2026-07-28 result: marked complete, the server named in its `_meta` unless it names one already. */
function stampModern(result: Record<string, unknown>): Record<string, unknown> {
  let encoded = result;
  if (encoded.resultType === undefined) encoded = { ...encoded, resultType: 'complete' };
  const meta = encoded._meta;
  if (meta === undefined) encoded = { ...encoded, _meta: { [SERVER_INFO_META_KEY]: satelliteServerInfo } };
  else if (isPlainObject(meta) && meta[SERVER_INFO_META_KEY] === undefined) {
    encoded = { ...encoded, _meta: { ...meta, [SERVER_INFO_META_KEY]: satelliteServerInfo } };
  }
  return encoded;
}

/** The JSON-RPC error the SDK answers for a tools/call whose handler threw. */
function errorMessage(id: string | number, error: unknown) {
  const thrown = error as { code?: unknown; message?: unknown; data?: unknown };
  const code = Number.isSafeInteger(thrown?.code) ? (thrown.code as number) : ProtocolErrorCode.InternalError;
  return {
    jsonrpc: '2.0',
    id,
    error: {
      // -32002 (resource not found) is carried as invalid params on the wire.
      code: code === -32002 ? ProtocolErrorCode.InvalidParams : code,
      message: typeof thrown?.message === 'string' ? thrown.message : 'Internal error',
      ...(thrown?.data !== undefined ? { data: thrown.data } : {}),
    },
  };
}

/**
 * What a plain call runs with: the meta-tools' handlers, the caller's scope, the signal that stops
 * the call and, for a 2025 session's call, the session's id (it goes with the call into the request log).
 */
type PlainCallContext = { handlers: ToolHandlers; scope: ToolScope; signal: AbortSignal; sessionId?: string };

/** Runs a plain call and builds its JSON-RPC answer as the SDK's serving of `era` would. */
async function answer(call: PlainToolCall, context: PlainCallContext, era: 'legacy' | 'modern'): Promise<object> {
  const { handlers, scope, signal, sessionId } = context;
  let result: CallToolResult;
  try {
    result =
      call.tool === 'discover_mcp_tools'
        ? await handlers.discover(call.arguments, scope)
        : await executeWithoutInput(handlers, call.arguments, scope, {}, { signal, onProgress: undefined }, sessionId);
  } catch (error) {
    return errorMessage(call.id, error);
  }
  const checked = checkResult(result, era);
  if ('error' in checked) {
    return { jsonrpc: '2.0', id: call.id, error: { code: ProtocolErrorCode.InvalidParams, message: checked.error } };
  }
  return { result: era === 'modern' ? stampModern(checked.value) : checked.value, jsonrpc: '2.0', id: call.id };
}

/** An answer for the HTTP layer to write. */
export type PlainAnswer = {
  status: number;
  headers: Record<string, string>;
  /** An event stream, whose head may go out before its body when the call is slow. */
  stream: boolean;
  body: Promise<string>;
};

/**
 * A plain 2026-07-28 call's answer: a JSON body once the call ends. The context's signal is the
 * client's stream: its going away cancels the upstream call, as on the SDK's path.
 */
export function answerModernToolCall(call: PlainToolCall, context: PlainCallContext): PlainAnswer {
  return {
    status: 200,
    headers: { 'content-type': 'application/json' },
    stream: false,
    body: answer(call, context, 'modern').then((message) => JSON.stringify(message)),
  };
}

/**
 * A plain 2025 call's answer: the one event of the POST's event stream, with the session
 * transport's headers. The context's signal ends the call when the client goes away, cancels it or
 * the session ends.
 */
export function answerLegacyToolCall(
  call: PlainToolCall,
  context: PlainCallContext & { sessionId: string },
): PlainAnswer {
  return {
    status: 200,
    headers: {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
      'mcp-session-id': context.sessionId,
    },
    stream: true,
    body: answer(call, context, 'legacy').then((message) => `event: message\ndata: ${JSON.stringify(message)}\n\n`),
  };
}
