import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createAddressPolicy,
  createGuardedFetch,
  EgressError,
  fetchGuarded,
  nonPublicAddresses,
} from '../src/index.ts';

let server: Server;
let port: number;
const hung = new Set<import('node:http').ServerResponse>();

beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.url === '/doc') return response.end('{"ok":true}');
    if (request.url === '/echo') {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        response.setHeader('content-type', 'application/json');
        response.setHeader('set-cookie', ['a=1', 'b=2']);
        response.end(
          JSON.stringify({
            method: request.method,
            type: request.headers['content-type'] ?? null,
            authorization: request.headers.authorization ?? null,
            body: Buffer.concat(chunks).toString(),
          }),
        );
      });
      return;
    }
    if (request.url === '/declared-large') {
      response.setHeader('content-length', '10000');
      return response.end('x'.repeat(10000));
    }
    if (request.url === '/streamed-large') {
      response.write('x'.repeat(600));
      response.write('x'.repeat(600));
      return response.end();
    }
    if (request.url === '/redirect') {
      response.statusCode = 302;
      response.setHeader('location', 'http://169.254.169.254/latest/meta-data/');
      return response.end();
    }
    if (request.url === '/hang') {
      hung.add(response);
      response.write('{"partial":');
      return;
    }
    response.statusCode = 404;
    return response.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  for (const response of hung) response.destroy();
  await new Promise((resolve) => server.close(resolve));
});

const publicOnly = createAddressPolicy({ refuse: nonPublicAddresses });
const loopbackAllowed = createAddressPolicy({ refuse: nonPublicAddresses, allowNetworks: ['127.0.0.0/8', '::1'] });
const options = { timeoutMs: 2000, maxBytes: 1024, allowHttp: true };

async function failure(promise: Promise<unknown>): Promise<EgressError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(EgressError);
  return error as EgressError;
}

describe('fetchGuarded', () => {
  it('fetches from an address the policy allows', async () => {
    const response = await fetchGuarded(new URL(`http://127.0.0.1:${port}/doc`), {
      ...options,
      policy: loopbackAllowed,
    });
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body.toString())).toEqual({ ok: true });
  });

  it('refuses an address literal and a name resolving to a refused address, before any request', async () => {
    const literal = await failure(
      fetchGuarded(new URL(`http://127.0.0.1:${port}/doc`), { ...options, policy: publicOnly }),
    );
    expect(literal.reason).toBe('address');
    expect(literal.message).toBe('127.0.0.1 is a loopback address');
    const named = await failure(
      fetchGuarded(new URL(`http://localhost:${port}/doc`), { ...options, policy: publicOnly }),
    );
    expect(named.reason).toBe('address');
    expect(named.message).toMatch(/^localhost resolves to .* loopback address$/);
    const metadata = await failure(
      fetchGuarded(new URL('http://169.254.169.254/latest/meta-data/'), { ...options, policy: loopbackAllowed }),
    );
    expect(metadata.message).toBe('169.254.169.254 is a cloud metadata address');
  });

  it('refuses plain http unless allowed, and credentials in the URL', async () => {
    const plain = await failure(
      fetchGuarded(new URL(`http://127.0.0.1:${port}/doc`), { ...options, allowHttp: false, policy: loopbackAllowed }),
    );
    expect(plain.reason).toBe('scheme');
    const withUser = await failure(
      fetchGuarded(new URL(`http://user:pw@127.0.0.1:${port}/doc`), { ...options, policy: loopbackAllowed }),
    );
    expect(withUser.reason).toBe('scheme');
  });

  it('stops reading a body over the limit, declared or streamed', async () => {
    for (const path of ['/declared-large', '/streamed-large']) {
      const error = await failure(
        fetchGuarded(new URL(`http://127.0.0.1:${port}${path}`), { ...options, policy: loopbackAllowed }),
      );
      expect(error.reason).toBe('too_large');
    }
  });

  it('gives up on a server that never finishes', async () => {
    const error = await failure(
      fetchGuarded(new URL(`http://127.0.0.1:${port}/hang`), { ...options, timeoutMs: 200, policy: loopbackAllowed }),
    );
    expect(error.reason).toBe('timeout');
  });

  it('does not follow a redirect: the caller sees it', async () => {
    const response = await fetchGuarded(new URL(`http://127.0.0.1:${port}/redirect`), {
      ...options,
      policy: loopbackAllowed,
    });
    expect(response.status).toBe(302);
  });
});

describe('createGuardedFetch', () => {
  const guarded = createGuardedFetch({ policy: loopbackAllowed, timeoutMs: 2000, maxBytes: 1024, allowHttp: true });

  it('sends a form POST with its content type and headers, and answers a Response', async () => {
    const response = await guarded(`http://127.0.0.1:${port}/echo`, {
      method: 'POST',
      headers: { authorization: 'Basic abc' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'r' }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('set-cookie')).toBe('a=1, b=2');
    expect(await response.json()).toEqual({
      method: 'POST',
      type: 'application/x-www-form-urlencoded;charset=UTF-8',
      authorization: 'Basic abc',
      body: 'grant_type=refresh_token&refresh_token=r',
    });
  });

  it('keeps the policy, the limits and the refusal of redirects of fetchGuarded', async () => {
    const refused = createGuardedFetch({ policy: publicOnly, timeoutMs: 2000, maxBytes: 1024, allowHttp: true });
    expect((await failure(refused(`http://127.0.0.1:${port}/doc`))).reason).toBe('address');
    expect((await failure(guarded(`http://127.0.0.1:${port}/streamed-large`))).reason).toBe('too_large');
    expect((await guarded(`http://127.0.0.1:${port}/redirect`)).status).toBe(302);
    await expect(guarded(`http://127.0.0.1:${port}/doc`, { method: 'DELETE' })).rejects.toThrow(/GET or POST/);
  });
});
