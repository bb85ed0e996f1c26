import { randomUUID } from 'node:crypto';
import { type PrivateRedisServer, startRedisServer } from '@orbital/testing';
import { stackForFile } from '@orbital/testing/stackForFile';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { describe, expect, it } from 'vitest';
import { bearer, type IdentityStack, loginAdmin, startIdentityStack } from './identityStack.ts';
import { startJobsService } from './startJobsService.ts';

/**
 * A fuzz probe of every operation the OpenAPI document lists, against the real services: hostile bodies
 * (nested 100,000 deep, huge numbers, wrong types, NUL characters, bad UTF-8 and lone surrogates, wrong
 * content types, enormous and many keys, prototype keys), hostile path parameters and query strings, sent
 * anonymously, as the global admin and as a registered satellite; and, as the admin, a body valid by the
 * operation's own schema with one field at a time replaced by each hostile value, so the hostile value
 * travels as far into the services as validation lets it. Whatever arrives, the answer is a success or a
 * 4xx in the error envelope: never a 5xx.
 */
type JsonSchema = {
  type?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  format?: string;
  pattern?: string;
  minLength?: number;
  minimum?: number;
  minItems?: number;
  default?: unknown;
};
type Operation = { requestBody?: { content?: Record<string, { schema?: JsonSchema }> } };
type Probe = { name: string; inject: InjectOptions };
type Caller = { name: string; headers: Record<string, string>; satelliteId?: string };
type Stack = IdentityStack & { redis: PrivateRedisServer; stopJobs(): Promise<void> };

const stack = stackForFile(async (): Promise<Stack> => {
  const identity = await startIdentityStack();
  await identity.app.listen({ port: 0, host: '127.0.0.1' });
  // The jobs service too (GET /api/jobs/status), on a Redis of its own so no schedule is left behind.
  const redis = await startRedisServer();
  const jobs = await startJobsService(
    { ...identity.env.env, REDIS_URL: redis.url, JOBS_ATTEMPTS: '1' },
    identity.logger,
  );
  const stopJobs = () => jobs.stop();
  return {
    ...identity,
    redis,
    stopJobs,
    async stop() {
      await stopJobs();
      await redis.close();
      await identity.stop();
    },
  };
});

const depth = 100_000;
const nul = '\u0000';

/** Raw JSON texts, each a JSON document a route should refuse or shrug off. */
const hostileJson: Record<string, string> = {
  'array nested 100,000 deep': '['.repeat(depth) + ']'.repeat(depth),
  'object nested 100,000 deep': `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`,
  'null body': 'null',
  'string body': '"text"',
  'number body': '1e400',
  'boolean body': 'true',
  'array body': '[1,"two",{"three":3}]',
  'huge numbers': '{"a":1e400,"b":-1e400,"c":123456789012345678901234567890,"d":1e-400}',
  'NUL in a value and a key': '{"name":"a\\u0000b","k\\u0000":1}',
  'lone surrogates': '{"name":"\\ud800","slug":"\\udfff","description":"a\\ud83d"}',
  'an enormous key': `{"${'k'.repeat(200_000)}":1}`,
  'ten thousand keys': `{${Array.from({ length: 10_000 }, (_, i) => `"k${i}":${i}`).join(',')}}`,
  'prototype keys': '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}',
  'duplicate keys': '{"name":"a","name":{"x":1}}',
  'empty object': '{}',
};

const deepMarker = '\u0001nested 100,000 deep\u0001';
const deepText = `${'{"a":['.repeat(depth / 2)}1${']}'.repeat(depth / 2)}`;

/** What one field of an otherwise valid body is replaced by: every wrong type and every hostile value. */
const hostileValues: Record<string, unknown> = {
  'a huge number': 1e308,
  'a negative huge number': -1e308,
  'an unsafe integer': 2 ** 53 + 1,
  'a fraction': 0.5,
  'a long string': 'x'.repeat(100_000),
  'a NUL': `a${nul}b`,
  'a lone surrogate': 'a\ud800b',
  'line separators and bidi marks': 'a\u2028b\u202ec\ufeff',
  'an array': [1, [2, [3]], { a: null }],
  'an object': { nested: { deeper: [true] } },
  null: null,
  'a boolean': false,
  'an empty string': '',
  'a value nested 60 deep': JSON.parse('['.repeat(60) + ']'.repeat(60)),
  // Written into the body's text in place of this marker: no value that deep survives JSON.stringify.
  'a value nested 100,000 deep': deepMarker,
  'path-like text': '../../etc/passwd %00 <script>',
};

/** Bodies that are not JSON, or not what they claim to be. */
const hostileRaw: Array<{ name: string; contentType?: string; payload: string | Buffer }> = [
  { name: 'invalid JSON', contentType: 'application/json', payload: '{"name": ' },
  { name: 'an empty JSON body', contentType: 'application/json', payload: '' },
  {
    name: 'bad UTF-8 bytes',
    contentType: 'application/json',
    payload: Buffer.from([0x7b, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc3, 0x28, 0x22, 0x7d]),
  },
  { name: 'UTF-16 JSON', contentType: 'application/json; charset=utf-16', payload: Buffer.from('{"a":1}', 'utf16le') },
  { name: 'text/plain', contentType: 'text/plain', payload: '{"name":"x"}' },
  {
    name: 'XML',
    contentType: 'application/xml',
    payload: '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "a">]><x>&a;</x>',
  },
  {
    name: 'multipart',
    contentType: 'multipart/form-data; boundary=b',
    payload: '--b\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--b--',
  },
  {
    name: 'form fields',
    contentType: 'application/x-www-form-urlencoded',
    payload: 'a=1&a=2&b[c]=3&%00=%ff&x=%E0%A4%A',
  },
  { name: 'no content type', payload: '{"name":"x"}' },
  { name: 'JSON under a vendor type', contentType: 'application/vnd.api+json', payload: '{"name":"x"}' },
];

/** Path parameters that are not what they should be. */
const hostileParams = [
  '%00',
  'a'.repeat(3000),
  '..%2F..%2Fetc',
  '%ff%fe',
  'NULL',
  '-1',
  '1e400',
  '%F0%9F%98%80',
  '%20',
];

/** Query strings with junk, repeats, NULs, huge numbers and bad encodings. */
const hostileQueries = [
  'limit=1e400&offset=-1&wait_ms=99999999999999999999',
  'limit=abc&limit=1&limit=2&q=%00&status=%ff',
  `q=${'x'.repeat(6000)}`,
  'x[]=1&x[a]=2&__proto__[polluted]=1&constructor[prototype][p]=1',
  'since=not-a-date&until=9999-99-99&team_id=%00&cursor=%E0%A4%A&q=%ED%A0%80',
];

/** A value the schema accepts, as far as a small generator can tell (enough to get past most schemas). */
function validOf(schema: JsonSchema | undefined): unknown {
  if (!schema) return {};
  if (schema.enum && schema.enum.length > 0) return schema.enum[0];
  if (schema.anyOf?.[0]) return validOf(schema.anyOf[0]);
  switch (schema.type) {
    case 'string':
      if (schema.format === 'uuid') return randomUUID();
      if (schema.format === 'email') return `fuzz-${randomUUID().slice(0, 8)}@orbital.test`;
      if (schema.format === 'uri' || schema.format === 'url') return 'https://example.org/fuzz';
      if (schema.format === 'date-time') return new Date().toISOString();
      return `fuzz-${randomUUID().slice(0, 8)}`.padEnd(schema.minLength ?? 0, 'z');
    case 'integer':
    case 'number':
      return Math.max(schema.minimum ?? 1, 1);
    case 'boolean':
      return true;
    case 'array':
      return Array.from({ length: schema.minItems ?? 0 }, () => validOf(schema.items));
    default: {
      const body: Record<string, unknown> = {};
      for (const name of schema.required ?? []) body[name] = validOf(schema.properties?.[name]);
      return body;
    }
  }
}

/** Bodies valid by `schema` but for one place holding `value`: each field, an item, a map entry and a key. */
function mutationsOf(schema: JsonSchema, value: unknown): unknown[] {
  const base = validOf(schema) as Record<string, unknown>;
  const bodies: unknown[] = [];
  for (const [name, field] of Object.entries(schema.properties ?? {})) {
    bodies.push({ ...base, [name]: value });
    if (field.type === 'array') bodies.push({ ...base, [name]: [value] });
    if (field.type === 'object' && typeof field.additionalProperties === 'object') {
      bodies.push({ ...base, [name]: { FUZZ: value } });
      if (typeof value === 'string') bodies.push({ ...base, [name]: { [value]: 'v' } });
    }
  }
  return bodies;
}

/** The operation's path with its parameters filled: the caller's own ids where they fit, else `value`. */
function pathWith(path: string, caller: Caller, teamId: string, value?: string): string {
  return path.replace(/\{(\w+)\}/g, (_whole, name: string) => {
    if (value !== undefined) return value;
    if (name === 'teamId') return teamId;
    if (name === 'id' && caller.satelliteId) return caller.satelliteId;
    return '00000000-0000-4000-8000-000000000000';
  });
}

const jsonHeaders = (payload: string) => ({
  'content-type': 'application/json',
  'content-length': String(Buffer.byteLength(payload)),
});

function probesOf(path: string, method: string, operation: Operation, caller: Caller, teamId: string): Probe[] {
  const verb = method.toUpperCase() as InjectOptions['method'];
  const url = pathWith(path, caller, teamId);
  const probes: Probe[] = [];
  for (const value of hostileParams) {
    probes.push({
      name: `path parameter ${value.slice(0, 20)}`,
      inject: { method: verb, url: pathWith(path, caller, teamId, value) },
    });
  }
  for (const query of hostileQueries) {
    probes.push({ name: `query ${query.slice(0, 40)}`, inject: { method: verb, url: `${url}?${query}` } });
  }
  if (verb === 'GET' || verb === 'HEAD') return probes;
  for (const [name, payload] of Object.entries(hostileJson)) {
    probes.push({ name, inject: { method: verb, url, payload, headers: jsonHeaders(payload) } });
  }
  for (const raw of hostileRaw) {
    const headers = raw.contentType ? { 'content-type': raw.contentType } : {};
    probes.push({ name: raw.name, inject: { method: verb, url, payload: raw.payload, headers } });
  }
  const schema = operation.requestBody?.content?.['application/json']?.schema;
  // The admin gets past access on every route: the one caller whose valid bodies reach the services.
  if (schema && caller.name === 'admin') {
    for (const [name, value] of Object.entries(hostileValues)) {
      for (const [index, body] of mutationsOf(schema, value).entries()) {
        const payload = JSON.stringify(body).replaceAll(JSON.stringify(deepMarker), deepText);
        probes.push({
          name: `${name} in place ${index}`,
          inject: { method: verb, url, payload, headers: jsonHeaders(payload) },
        });
      }
    }
  }
  return probes;
}

/**
 * One probe's answer. An event stream a probe opens never ends: its answer is its status and head, and
 * the stream is closed at once (through a real socket, which inject cannot do).
 */
async function send(app: FastifyInstance, probe: Probe, caller: Caller) {
  const headers = { ...(probe.inject.headers as Record<string, string>), ...caller.headers };
  if (!String(probe.inject.url).split('?')[0]?.endsWith('/stream')) {
    const response = await app.inject({ ...probe.inject, headers });
    return {
      status: response.statusCode,
      contentType: String(response.headers['content-type'] ?? ''),
      body: response.body,
    };
  }
  const address = app.server.address() as { port: number };
  const gone = new AbortController();
  const response = await fetch(`http://127.0.0.1:${address.port}${probe.inject.url}`, {
    method: String(probe.inject.method),
    headers,
    signal: gone.signal,
  });
  const contentType = response.headers.get('content-type') ?? '';
  const body = contentType.startsWith('text/event-stream') ? '' : await response.text();
  gone.abort();
  return { status: response.status, contentType, body };
}

/** Registers a satellite through the API, so its routes are probed past authentication. */
async function satelliteCaller(app: FastifyInstance, admin: Record<string, string>): Promise<Caller> {
  const token = await app.inject({
    method: 'POST',
    url: '/api/satellites/registration-tokens',
    headers: admin,
    payload: {},
  });
  const registered = await app.inject({
    method: 'POST',
    url: '/api/satellites/register',
    headers: { authorization: token.json().data.authorization },
    payload: { name: 'fuzzed' },
  });
  const { satellite_id, api_key } = registered.json().data;
  return { name: 'satellite', headers: { authorization: `Bearer ${api_key}` }, satelliteId: satellite_id };
}

describe('a fuzz probe of every route', () => {
  it('answers every hostile request with a success or a 4xx in the envelope, never a 5xx', async () => {
    const app = stack.app;
    const document = (await app.inject({ url: '/documentation/json' })).json() as {
      paths: Record<string, Record<string, Operation>>;
    };
    const admin = bearer(await loginAdmin(app));
    const team = await app.inject({
      method: 'POST',
      url: '/api/teams',
      headers: admin,
      payload: { slug: 'fuzz', name: 'Fuzz' },
    });
    const teamId = team.json().data.id as string;
    const callers: Caller[] = [
      { name: 'anonymous', headers: {} },
      { name: 'admin', headers: admin },
      await satelliteCaller(app, admin),
    ];
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        for (const caller of callers) {
          // The admin's own session ends with a logout, and the team with a DELETE: probed by the others.
          if (caller.name === 'admin' && (path === '/api/auth/logout' || method === 'delete')) continue;
          const probes = probesOf(path, method, operation, caller, teamId);
          // One operation's probes side by side, as independent clients send them.
          const answers = await Promise.all(probes.map((probe) => send(app, probe, caller)));
          for (const [index, answer] of answers.entries()) {
            statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
            if (answer.status < 500 && (answer.status < 400 || /json|html/.test(answer.contentType))) continue;
            failures.push(
              `${method.toUpperCase()} ${path} as ${caller.name}, ${probes[index]?.name}: ${answer.status} ${answer.body.slice(0, 200)}`,
            );
          }
        }
      }
    }
    const sent = [...statuses.values()].reduce((sum, count) => sum + count, 0);
    // Most probes are refused, and some get through to the services and succeed: both are needed.
    expect(sent).toBeGreaterThan(5000);
    expect([...statuses.keys()].some((status) => status < 300)).toBe(true);
    expect(failures).toEqual([]);
  }, 600_000);
});
