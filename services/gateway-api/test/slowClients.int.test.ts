import { type IncomingMessage, request } from 'node:http';
import { createLiveStreams } from '@orbital/sse';
import { trickleRequest } from '@orbital/testing';
import { stackForFile } from '@orbital/testing/stackForFile';
import { describe, expect, it } from 'vitest';
import { bearer, loginAdmin, type Session, startIdentityStack } from './identityStack.ts';

/**
 * Clients that send slowly, through real sockets: one trickling its head and one trickling its body are
 * cut once their limit is up (HTTP_HEADERS_TIMEOUT_MS, HTTP_REQUEST_TIMEOUT_MS), while responses that
 * take long on purpose (an event stream, a long poll) outlive both limits, which count only until a
 * request is in.
 */
const headersTimeoutMs = 500;
const requestTimeoutMs = 1000;

const stack = stackForFile(async () => {
  const identity = await startIdentityStack({
    env: {
      HTTP_HEADERS_TIMEOUT_MS: String(headersTimeoutMs),
      HTTP_REQUEST_TIMEOUT_MS: String(requestTimeoutMs),
      HTTP_KEEP_ALIVE_TIMEOUT_MS: String(requestTimeoutMs),
    },
    sse: { live: createLiveStreams(), keepAliveMs: 200, retryMs: 1000 },
  });
  await identity.app.listen({ port: 0, host: '127.0.0.1' });
  return identity;
});

const portOf = () => (stack.app.server.address() as { port: number }).port;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const trickle = (first: string, drip: () => string) => trickleRequest(portOf(), first, drip);

describe('slow clients', () => {
  it('cut a client trickling its head once the head limit is up', async () => {
    let header = 0;
    const drips = await trickle('GET /healthz HTTP/1.1\r\nHost: x\r\n', () => `X-Slow-${header++}: a\r\n`);
    // It was sending all along: the head's deadline, not silence, ended it.
    expect(drips).toBeGreaterThan(2);
  });

  it('cut a client trickling its body once the request limit is up', async () => {
    const body = JSON.stringify({ email: 'someone@orbital.test', password: 'x'.repeat(500) });
    let sent = 0;
    const drips = await trickle(
      `POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
      () => body[sent++ % body.length] as string,
    );
    expect(drips).toBeGreaterThan(requestTimeoutMs / 100 - 2);
    expect(sent).toBeLessThan(body.length);
  });

  it('keep an event stream open well past the request limit', async () => {
    const admin: Session = await loginAdmin(stack.app);
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      request(
        {
          host: '127.0.0.1',
          port: portOf(),
          path: '/api/users/me/mcp/client-activity/stream',
          headers: { ...bearer(admin), accept: 'text/event-stream' },
        },
        resolve,
      )
        .on('error', reject)
        .end();
    });
    expect(response.statusCode).toBe(200);
    const received: string[] = [];
    let closed = false;
    response.on('data', (chunk: Buffer) => received.push(chunk.toString()));
    response.on('close', () => {
      closed = true;
    });
    await sleep(3 * requestTimeoutMs);
    const before = received.length;
    await sleep(500);
    // Still open, and its keep-alive comments still arriving.
    expect(closed).toBe(false);
    expect(received.length).toBeGreaterThan(before);
    response.destroy();
  });

  it('answer a long poll held longer than the request limit', async () => {
    const admin: Session = await loginAdmin(stack.app);
    const base = `http://127.0.0.1:${portOf()}`;
    const token = await fetch(`${base}/api/satellites/registration-tokens`, {
      method: 'POST',
      headers: { ...bearer(admin), 'content-type': 'application/json' },
      body: '{}',
    }).then(async (r) => ((await r.json()) as { data: { authorization: string } }).data.authorization);
    const registered = await fetch(`${base}/api/satellites/register`, {
      method: 'POST',
      headers: { authorization: token, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'long-poller' }),
    }).then(async (r) => ((await r.json()) as { data: { satellite_id: string; api_key: string } }).data);
    const poll = await fetch(
      `${base}/api/satellites/${registered.satellite_id}/commands?wait_ms=${3 * requestTimeoutMs}`,
      {
        headers: { authorization: `Bearer ${registered.api_key}` },
      },
    );
    expect(poll.status).toBe(200);
    expect(await poll.json()).toMatchObject({ success: true, data: { long_poll_ms: 3 * requestTimeoutMs } });
  });
});
