import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ConformanceRun, freePort, runConformanceSuite } from '@orbital/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, type IdentityStack, loginAdmin, type Session, startIdentityStack } from './identityStack.ts';
import { postForm, registerClient } from './oauthFlow.ts';

/**
 * The authorization-server scenarios of the MCP conformance suite (@modelcontextprotocol/conformance,
 * pinned in libs/testing) at the 2026-07-28 revision, against gateway-api listening on a port: its
 * metadata, then the authorization-code grant. The suite prints the authorization URL a person would
 * open; the test plays that person's browser (logged in, it approves the consent page) and the suite
 * receives the code on its own callback server, checks `iss`, and exchanges the code at /token.
 * No scenario is expected to fail, and none may warn (the suite warns when metadata documents are not
 * supported).
 */
let stack: IdentityStack;
let gateway: FastifyInstance;
let issuer: string;
let admin: Session;
let teamId: string;
let documentServer: Server;
let documentUrl: string;

beforeAll(async () => {
  const port = await freePort();
  issuer = `http://127.0.0.1:${port}`;
  documentServer = createServer((_request, response) => {
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify(document));
  });
  await new Promise<void>((resolve) => documentServer.listen(0, '127.0.0.1', resolve));
  documentUrl = `http://127.0.0.1:${(documentServer.address() as AddressInfo).port}/conformance-client.json`;
  stack = await startIdentityStack({
    issuerUrl: new URL(issuer),
    // The suite's client document lives on this machine; production allows public https only.
    env: { OAUTH_CLIENT_METADATA_ALLOW_HTTP: 'true', OAUTH_CLIENT_METADATA_ALLOWED_NETWORKS: '127.0.0.1/32' },
  });
  gateway = stack.app;
  await gateway.listen({ port, host: '127.0.0.1' });
  admin = await loginAdmin(gateway);
  const team = await gateway.inject({
    method: 'POST',
    url: '/api/teams',
    headers: bearer(admin),
    payload: { slug: 'conformance', name: 'Conformance' },
  });
  teamId = team.json().data.id;
  await gateway.inject({
    method: 'POST',
    url: `/api/teams/${teamId}/members`,
    headers: bearer(admin),
    payload: { user_id: admin.userId, role: 'team_admin' },
  });
});

afterAll(async () => {
  await stack?.stop();
  await new Promise((resolve) => documentServer?.close(resolve));
});

let document: Record<string, unknown> = {};

/** What a logged-in person does with the URL the suite prints: open it, choose the team, allow. */
async function approveInBrowser(authorizationUrl: string) {
  const url = new URL(authorizationUrl);
  const page = await gateway.inject({
    method: 'GET',
    url: `${url.pathname}${url.search}`,
    cookies: { session: admin.cookie },
  });
  if (page.statusCode !== 200) throw new Error(`consent page: ${page.statusCode} ${page.body}`);
  const answer = await postForm(
    gateway,
    '/authorize',
    { ...Object.fromEntries(url.searchParams), team_id: teamId, decision: 'approve' },
    { cookie: `session=${admin.cookie}` },
  );
  if (answer.statusCode !== 302) throw new Error(`consent answer: ${answer.statusCode} ${answer.body}`);
  // The browser follows the redirect to the suite's callback server.
  await fetch(answer.headers.location as string);
}

async function runAuthorizationScenarios(clientId: string, callbackPort: number) {
  const approvals: Promise<void>[] = [];
  const run = await runConformanceSuite({
    command: 'authorization',
    url: issuer,
    specVersion: '2026-07-28',
    args: ['--client-id', clientId, '--port', String(callbackPort), '--resource', 'http://127.0.0.1:3001/mcp'],
    onLine(line) {
      if (line.startsWith(`${issuer}/authorize?`)) approvals.push(approveInBrowser(line.trim()));
    },
  });
  await Promise.all(approvals);
  return run;
}

function expectEveryCheckPassed(run: ConformanceRun) {
  expect(run.scenarios.map((s) => s.scenario).sort(), run.output).toEqual([
    'authorization-code-grant',
    'authorization-server-metadata-endpoint',
  ]);
  const notPassed = run.scenarios.flatMap((s) =>
    s.checks
      .filter((c) => c.status !== 'SUCCESS')
      .map((c) => `${s.scenario}: ${c.id} ${c.status} ${c.errorMessage ?? ''}`),
  );
  expect(notPassed, run.output).toEqual([]);
  expect(run.exitCode, run.output).toBe(0);
}

describe('MCP conformance: authorization server scenarios at 2026-07-28', () => {
  it('pass with a dynamically registered client', async () => {
    const callbackPort = await freePort();
    const client = await registerClient(gateway, {
      client_name: 'Conformance suite',
      application_type: 'native',
      redirect_uris: [`http://127.0.0.1:${callbackPort}/callback`],
      grant_types: ['authorization_code'],
    });
    expectEveryCheckPassed(await runAuthorizationScenarios(client.client_id, callbackPort));
  }, 60_000);

  it('pass with a client identified by its metadata document', async () => {
    const callbackPort = await freePort();
    document = {
      client_id: documentUrl,
      client_name: 'Conformance suite (metadata document)',
      application_type: 'native',
      redirect_uris: [`http://127.0.0.1:${callbackPort}/callback`],
      token_endpoint_auth_method: 'none',
    };
    expectEveryCheckPassed(await runAuthorizationScenarios(documentUrl, callbackPort));
  }, 60_000);
});
