import { serverConfiguration } from '@orbital/contracts';
import { type OAuthProtectedMcpServer, startOAuthProtectedMcpServer } from '@orbital/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntimeHarness } from '../../test/createRuntimeHarness.ts';
import type { UpstreamTokens } from './upstreamTokens.ts';

let upstream: OAuthProtectedMcpServer;
const tokens = new Map<string, string>();
const asked: Array<{ userId: string | null; purpose: string; refused: boolean }> = [];

beforeAll(async () => {
  upstream = await startOAuthProtectedMcpServer();
  tokens.set('u-alice', await upstream.issueToken('alice'));
  tokens.set('u-bob', await upstream.issueToken('bob'));
});

afterAll(async () => {
  await upstream?.close();
});

/** What the backend link answers: each person's own token; listing tools takes Alice's. */
const fromBackend: UpstreamTokens = {
  async token(request) {
    asked.push({ userId: request.userId, purpose: request.purpose, refused: request.refused });
    // Dave's first token is one the server refuses (revoked meanwhile); his fresh one is Bob's account.
    if (request.userId === 'u-dave') {
      return { kind: 'ok', token: request.refused ? (tokens.get('u-bob') as string) : 'revoked-token' };
    }
    const token = tokens.get(request.purpose === 'discovery' ? 'u-alice' : (request.userId ?? ''));
    return token
      ? { kind: 'ok', token }
      : {
          kind: 'unavailable',
          message:
            'You have not authorized Orbital at this MCP server yet. Authorize at http://console.example/teams/t/installations/i',
        };
  },
};

const protectedServer = () =>
  serverConfiguration.parse({
    process_id: 'protected-alpha-inst-protected',
    installation_id: 'inst-protected',
    installation_name: 'protected',
    team_id: 'team-alpha',
    team_slug: 'alpha',
    server_slug: 'protected',
    transport: 'http',
    url: upstream.mcpUrl,
    oauth: { token_scope: 'user', authorized: true },
  });

describe('a remote server behind OAuth', () => {
  const harness = createRuntimeHarness();

  it("lists its tools with a token of the installation, and calls them with the caller's own", async () => {
    const runtime = harness.start([protectedServer()], {}, undefined, fromBackend);
    await runtime.start();
    expect(asked.some((a) => a.purpose === 'discovery')).toBe(true);
    const whoami = harness.found('protected:whoami');
    const alice = await runtime.callTool(whoami, {}, { userId: 'u-alice' });
    const bob = await runtime.callTool(whoami, {}, { userId: 'u-bob' });
    expect(alice.content).toEqual([{ type: 'text', text: 'you are alice' }]);
    expect(bob.content).toEqual([{ type: 'text', text: 'you are bob' }]);
  });

  it('fails the call of a person without a token, saying where to authorize', async () => {
    const runtime = harness.start([protectedServer()], {}, undefined, fromBackend);
    await runtime.start();
    await expect(runtime.callTool(harness.found('protected:whoami'), {}, { userId: 'u-carol' })).rejects.toThrow(
      /Authorize at http:\/\/console\.example\//,
    );
  });

  it('asks for a fresh token once when the server refuses the one it was given', async () => {
    const runtime = harness.start([protectedServer()], {}, undefined, fromBackend);
    await runtime.start();
    const refusedBefore = upstream.refusedTokens;
    const dave = await runtime.callTool(harness.found('protected:whoami'), {}, { userId: 'u-dave' });
    expect(dave.content).toEqual([{ type: 'text', text: 'you are bob' }]);
    expect(upstream.refusedTokens).toBe(refusedBefore + 1);
    expect(asked.filter((a) => a.userId === 'u-dave').map((a) => a.refused)).toEqual([false, true]);
  });

  it('does not start without a way to get tokens (a standalone satellite), and says why', async () => {
    const runtime = harness.start([protectedServer()], { remote: { reconnectBaseMs: 60_000 } });
    await runtime.start();
    const lookup = runtime.lookup('protected:whoami');
    expect(lookup).toMatchObject({ kind: 'unavailable' });
    expect(JSON.stringify(lookup)).toMatch(/only a satellite linked to the backend/);
  });
});
