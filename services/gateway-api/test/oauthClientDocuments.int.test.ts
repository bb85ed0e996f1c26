import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '@orbital/logger';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClientMetadataDocuments } from '../src/oauth/createClientMetadataDocuments.ts';
import { type IdentityStack, loginAdmin, type Session, startIdentityStack } from './identityStack.ts';
import { approve, exchangeCode, consentPage as openConsentPage, pkcePair, redirectUri } from './oauthFlow.ts';

/**
 * Client ID Metadata Documents: a client whose id is the URL of its own metadata document. The
 * documents are served by a small HTTP server on loopback, which this stack's operator allows
 * (production allows public https addresses only).
 */

type Served = { status?: number; headers?: Record<string, string>; body?: unknown; hang?: boolean };
const documents = new Map<string, Served>();
const fetches = new Map<string, number>();
const hanging = new Set<ServerResponse>();
let documentServer: Server;
let base: string;
let stack: IdentityStack;
let app: FastifyInstance;
let admin: Session;
let teamId: string;

/** Serves `document` at `path` and returns the client id (the URL) naming it. */
function publish(path: string, document: (clientId: string) => unknown, served: Omit<Served, 'body'> = {}) {
  const clientId = `${base}${path}`;
  documents.set(path, { ...served, body: document(clientId) });
  return clientId;
}

/** A loader of its own, on the stack's network, time and size limits, with what a test changes. */
const documentsLoader = (options: { allowHttp: boolean; maxEntries: number }) =>
  createClientMetadataDocuments({
    ...options,
    allowNetworks: ['127.0.0.1/32'],
    timeoutMs: 500,
    maxBytes: 2048,
    logger: createLogger({ name: 'test', level: 'silent' }),
  });

const goodDocument = (clientId: string) => ({
  client_id: clientId,
  client_name: 'Editor <Deluxe>',
  redirect_uris: [redirectUri],
  grant_types: ['authorization_code', 'refresh_token'],
  token_endpoint_auth_method: 'none',
  application_type: 'native',
});

beforeAll(async () => {
  documentServer = createServer((request, response) => {
    const path = request.url ?? '';
    fetches.set(path, (fetches.get(path) ?? 0) + 1);
    const served = documents.get(path);
    if (!served) {
      response.statusCode = 404;
      return response.end();
    }
    if (served.hang) {
      hanging.add(response);
      return response.write('{');
    }
    response.statusCode = served.status ?? 200;
    response.setHeader('content-type', 'application/json');
    for (const [name, value] of Object.entries(served.headers ?? {})) response.setHeader(name, value);
    return response.end(typeof served.body === 'string' ? served.body : JSON.stringify(served.body));
  });
  await new Promise<void>((resolve) => documentServer.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(documentServer.address() as AddressInfo).port}`;
  stack = await startIdentityStack({
    env: {
      OAUTH_CLIENT_METADATA_ALLOW_HTTP: 'true',
      OAUTH_CLIENT_METADATA_ALLOWED_NETWORKS: '127.0.0.1/32',
      OAUTH_CLIENT_METADATA_TIMEOUT_MS: '500',
      OAUTH_CLIENT_METADATA_MAX_BYTES: '2048',
    },
  });
  app = stack.app;
  admin = await loginAdmin(app);
  const team = await app.inject({
    method: 'POST',
    url: '/api/teams',
    headers: { authorization: `Bearer ${admin.token}` },
    payload: { slug: 'docs', name: 'Docs' },
  });
  // Whoever creates a team is its first team admin: the admin's own tokens may name it.
  teamId = team.json().data.id;
});

afterAll(async () => {
  for (const response of hanging) response.destroy();
  await stack?.stop();
  await new Promise((resolve) => documentServer?.close(resolve));
});

function consentPage(clientId: string, redirect = redirectUri) {
  return openConsentPage(app, clientId, {
    session: admin,
    query: { redirect_uri: redirect, state: 's' },
  });
}

describe('a client identified by its metadata document', () => {
  it('is shown by the name its document gives, with where the document and the answer live', async () => {
    const clientId = publish('/editor.json', goodDocument);
    const page = await consentPage(clientId);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Editor &lt;Deluxe&gt;');
    expect(page.body).toContain(`published at <strong>${new URL(base).host}</strong>`);
    expect(page.body).toContain('a program on your own computer');
  });

  it('gets a code with iss, then tokens without any registration or secret', async () => {
    const clientId = publish('/flow.json', goodDocument);
    const pkce = pkcePair();
    const location = await approve(app, admin, { clientId, teamId, challenge: pkce.challenge });
    expect(location.searchParams.getAll('iss')).toEqual(['http://localhost:3000']);
    const code = location.searchParams.get('code') as string;
    expect(code).toMatch(/^orb_ac_/);
    const tokens = await exchangeCode(app, { clientId, code, verifier: pkce.verifier });
    expect(tokens.statusCode).toBe(200);
    expect(tokens.json()).toMatchObject({ token_type: 'Bearer', scope: 'mcp' });
    expect(tokens.json().refresh_token).toMatch(/^orb_rt_/);
    const listed = await app.inject({
      method: 'GET',
      url: '/api/users/me/access-tokens',
      headers: { authorization: `Bearer ${admin.token}` },
    });
    expect(listed.json().data).toEqual(
      expect.arrayContaining([expect.objectContaining({ client_id: clientId, client_name: 'Editor <Deluxe>' })]),
    );
  });

  it('is fetched once while its Cache-Control allows, and again when it forbids caching', async () => {
    const cached = publish('/cached.json', goodDocument, { headers: { 'cache-control': 'max-age=300' } });
    await Promise.all([consentPage(cached), consentPage(cached), consentPage(cached)]);
    await consentPage(cached);
    expect(fetches.get('/cached.json')).toBe(1);
    const uncached = publish('/uncached.json', goodDocument, { headers: { 'cache-control': 'no-store' } });
    await consentPage(uncached);
    await consentPage(uncached);
    expect(fetches.get('/uncached.json')).toBe(2);
  });

  it('may only redirect to a URI its document lists', async () => {
    const clientId = publish('/strict.json', goodDocument);
    const page = await consentPage(clientId, 'http://127.0.0.1:9999/elsewhere');
    expect(page.statusCode).toBe(400);
    expect(page.json()).toMatchObject({ error: 'invalid_request' });
    expect(page.headers.location).toBeUndefined();
  });

  it.each([
    [
      'names another client_id',
      (id: string) => ({ ...goodDocument(id), client_id: `${id}?other` }),
      'names a different client_id',
    ],
    ['has no client_name', (id: string) => ({ ...goodDocument(id), client_name: undefined }), 'has no client_name'],
    [
      'contains a client secret',
      (id: string) => ({ ...goodDocument(id), client_secret: 's3cret' }),
      'must not contain a client secret',
    ],
    [
      'asks for a shared-secret authentication method',
      (id: string) => ({ ...goodDocument(id), token_endpoint_auth_method: 'client_secret_basic' }),
      'token_endpoint_auth_method must be one of none',
    ],
    [
      'is a native application redirecting to https',
      (id: string) => ({ ...goodDocument(id), redirect_uris: ['https://app.test/cb'] }),
      'of a native application must be a loopback http address',
    ],
    ['is not a JSON object', () => '[1, 2]', 'is not a JSON object'],
    ['is not JSON', () => 'client_id=x', 'is not JSON'],
  ])('is refused when its document %s, shown and never redirected', async (name, document, reason) => {
    const clientId = publish(`/bad-${name.replaceAll(' ', '-')}.json`, document);
    const page = await consentPage(clientId);
    expect(page.statusCode).toBe(400);
    expect(page.headers.location).toBeUndefined();
    expect(page.json()).toMatchObject({ error: 'invalid_client' });
    expect(page.json().error_description).toContain(reason);
  });

  it.each([
    ['a missing document', '/missing.json', {}, 'answered HTTP 404'],
    ['a redirect', '/moved.json', { status: 302, headers: { location: 'http://169.254.169.254/' } }, 'redirects'],
    ['an oversized document', '/large.json', { headers: { 'x-padding': '' } }, 'larger than 2048 bytes'],
    ['a server that never finishes', '/slow.json', { hang: true }, 'no complete answer within 500 ms'],
  ])('is refused for %s', async (_name, path, served, reason) => {
    const body = path === '/large.json' ? { client_id: `${base}${path}`, padding: 'x'.repeat(4096) } : {};
    const clientId = `${base}${path}`;
    if (path !== '/missing.json') documents.set(path, { ...served, body });
    const page = await consentPage(clientId);
    expect(page.statusCode).toBe(400);
    expect(page.json()).toMatchObject({ error: 'invalid_client' });
    expect(page.json().error_description).toContain(reason);
  });

  it.each([
    ['a cloud metadata address', 'http://169.254.169.254/latest/client.json', 'cloud metadata address'],
    ['a private network address', 'http://10.0.0.7/client.json', 'private network address'],
    ['a loopback address the operator did not allow', 'http://127.0.0.2:8080/client.json', 'loopback address'],
    ['a URL without a path', 'http://127.0.0.1:8080/', 'must have a path'],
    ['a URL not in its normal form', 'http://127.0.0.1:8080/a/../client.json', 'normal form'],
    ['a URL with credentials', 'http://user:pw@127.0.0.1:8080/client.json', 'credentials'],
  ])('is refused, without a request, for %s', async (_name, clientId, reason) => {
    const before = [...fetches.values()].reduce((a, b) => a + b, 0);
    const page = await consentPage(clientId);
    expect(page.statusCode).toBe(400);
    expect(page.json()).toMatchObject({ error: 'invalid_client' });
    expect(page.json().error_description).toContain(reason);
    expect([...fetches.values()].reduce((a, b) => a + b, 0)).toBe(before);
  });

  it('is logged when refused, with its URL and the reason', () => {
    const refused = stack.logs.lines().filter((line) => line.event === 'oauth.client_document_refused');
    expect(refused.some((line) => String(line.reason).includes('cloud metadata address'))).toBe(true);
  });

  it('must be https where plain http is not allowed (production)', async () => {
    const production = documentsLoader({ allowHttp: false, maxEntries: 10 });
    const clientId = publish('/plain.json', goodDocument);
    await expect(production.load(clientId)).rejects.toThrow('must be an https URL');
    expect(fetches.get('/plain.json')).toBeUndefined();
  });

  it('keeps no more documents than its limit', async () => {
    const small = documentsLoader({ allowHttp: true, maxEntries: 2 });
    const ids = ['/lru-1.json', '/lru-2.json', '/lru-3.json'].map((path) =>
      publish(path, goodDocument, { headers: { 'cache-control': 'max-age=300' } }),
    );
    for (const id of ids) await small.load(id);
    await small.load(ids[2] as string);
    await small.load(ids[1] as string);
    expect(fetches.get('/lru-2.json')).toBe(1);
    expect(fetches.get('/lru-3.json')).toBe(1);
    await small.load(ids[0] as string);
    expect(fetches.get('/lru-1.json')).toBe(2);
  });
});
