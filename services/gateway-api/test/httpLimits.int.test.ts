import { request } from 'node:http';
import { connect } from 'node:net';
import { type Bus, createBus } from '@orbital/bus';
import { createLogger } from '@orbital/logger';
import { createTestEnvironment, type TestEnvironment } from '@orbital/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from './startTestGateway.ts';

/**
 * The HTTP limits, through a real socket as clients meet them: a body over the limit, a URL too long,
 * headers too large and a request that is not HTTP are each answered with their status in the error
 * envelope, and a client still sending its over-limit body reads the 413 instead of a broken pipe.
 */
let env: TestEnvironment;
let bus: Bus;
let built: TestGateway;
let gateway: FastifyInstance;
let port: number;
const bodyLimit = 1024 * 1024;

beforeAll(async () => {
  env = await createTestEnvironment();
  const logger = createLogger({ name: 'limits-test', level: 'silent' });
  bus = await createBus({ ...env.busOptions('limits'), logger });
  built = await startTestGateway({ env, bus, logger, configEnv: { BODY_LIMIT_BYTES: String(bodyLimit) } });
  gateway = built.app;
  await gateway.listen({ port: 0, host: '127.0.0.1' });
  port = (gateway.server.address() as { port: number }).port;
});

afterAll(async () => {
  await built?.stop();
  await bus?.drain();
  await env?.cleanup();
});

type Answer = { status?: number; body?: unknown; error?: string };

/**
 * Sends `size` bytes of body the way a simple client does (all of it, then it reads), and reports the
 * answer and any error of the exchange (a broken pipe while still sending), once the connection closes.
 */
function post(size: number, chunked: boolean): Promise<Answer> {
  return new Promise((resolve) => {
    const answer: Answer = {};
    const headers = { 'content-type': 'application/json', ...(chunked ? {} : { 'content-length': String(size) }) };
    const outgoing = request({ host: '127.0.0.1', port, method: 'POST', path: '/api/db/setup', headers, agent: false });
    outgoing.on('response', (response) => {
      let text = '';
      response.on('data', (chunk) => {
        text += chunk;
      });
      response.on('end', () => {
        answer.status = response.statusCode ?? 0;
        answer.body = JSON.parse(text);
        done();
      });
    });
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      answer.error = error.code ?? error.message;
    });
    // Done when the answer is read and the whole body was written (a kept-alive connection stays
    // open), or when the connection closes, whichever comes first.
    let written = false;
    const done = () => {
      if (written && answer.status !== undefined) resolve(answer);
    };
    outgoing.on('finish', () => {
      written = true;
      done();
    });
    outgoing.on('close', () => resolve(answer));
    const chunk = Buffer.alloc(64 * 1024, 97);
    let sent = 0;
    const write = () => {
      while (sent < size && !outgoing.destroyed) {
        sent += chunk.length;
        if (!outgoing.write(chunk)) {
          outgoing.once('drain', write);
          return;
        }
      }
      if (!outgoing.destroyed) outgoing.end();
    };
    write();
  });
}

/** Writes raw bytes on a socket and returns the status line and JSON body of the answer. */
function raw(text: string): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk.toString();
    });
    socket.on('error', reject);
    socket.on('close', () => {
      const [head, body] = received.split('\r\n\r\n', 2) as [string, string];
      resolve({ status: Number(head.split(' ')[1]), body: JSON.parse(body) });
    });
    socket.write(text);
  });
}

describe('HTTP limits', () => {
  it.each([
    ['a declared length', false],
    ['a chunked body', true],
  ] as const)(
    'answer an over-limit body with %s: 413 in the envelope, read by a client still sending it',
    async (_name, chunked) => {
      for (let attempt = 0; attempt < 3; attempt++) {
        expect(await post(4 * 1024 * 1024, chunked)).toEqual({
          status: 413,
          body: { success: false, error: { code: 'payload_too_large', message: 'The request body is too large' } },
        });
      }
    },
  );

  it('answer an over-limit body to fetch, which sends it whole before reading', async () => {
    for (let attempt = 0; attempt < 3; attempt++) {
      const response = await fetch(`http://127.0.0.1:${port}/api/db/setup`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: 'a'.repeat(4 * 1024 * 1024),
      });
      expect(response.status).toBe(413);
      expect(await response.json()).toMatchObject({ error: { code: 'payload_too_large' } });
    }
  });

  it('answer a URL over 8 KiB with 414, whether Node or the gateway finds it too long', async () => {
    for (const length of [10_000, 40_000]) {
      const answer = await raw(
        `GET /api/db/status?q=${'a'.repeat(length)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
      );
      expect(answer).toEqual({
        status: 414,
        body: { success: false, error: { code: 'uri_too_long', message: 'The request URL is too long' } },
      });
    }
  });

  it('answer headers over the limit with 431', async () => {
    const answer = await raw(
      `GET /api/db/status HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expect(answer).toEqual({
      status: 431,
      body: { success: false, error: { code: 'headers_too_large', message: 'The request headers are too large' } },
    });
  });

  it('answer a body nested deeper than 64 levels with 400 before anything walks it', async () => {
    const depth = 10_000;
    for (const body of ['['.repeat(depth) + ']'.repeat(depth), `{"a":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`]) {
      const response = await fetch(`http://127.0.0.1:${port}/api/db/setup`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({
        success: false,
        error: {
          code: 'validation_failed',
          message: 'The request body nests deeper than 64 levels',
          details: [{ path: 'body', message: 'must not nest objects and arrays more than 64 deep' }],
        },
      });
    }
  });

  it('answer a request that is not HTTP with 400', async () => {
    expect(await raw('NOT HTTP AT ALL\r\n\r\n')).toMatchObject({
      status: 400,
      body: { success: false, error: { code: 'validation_failed' } },
    });
  });
});

describe('a method a path does not take', () => {
  it('is answered 405 with Allow naming the methods it takes, in the error envelope', async () => {
    const setup = await gateway.inject({ method: 'DELETE', url: '/api/db/setup' });
    expect(setup.statusCode).toBe(405);
    expect(setup.headers.allow).toBe('POST');
    expect(setup.json()).toMatchObject({ success: false, error: { code: 'method_not_allowed' } });

    // A path with a parameter: the methods of its pattern.
    const setting = await gateway.inject({ method: 'PATCH', url: '/api/settings/global.page_url' });
    expect(setting.statusCode).toBe(405);
    expect(setting.headers.allow).toBe('GET, HEAD, PUT, DELETE');

    // A path that exists with no method at all is still not found.
    const nowhere = await gateway.inject({ method: 'POST', url: '/api/no-such-thing' });
    expect(nowhere.statusCode).toBe(404);
    expect(nowhere.headers.allow).toBeUndefined();
  });
});
