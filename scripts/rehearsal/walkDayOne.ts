import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { eventually } from './eventually.ts';
import { requestJson } from './requestJson.ts';

/**
 * The day-one path as an operator and a developer walk it, against gateway-api's Service address: the
 * first admin signs in, registration tokens for the satellites, a team, a server from the catalogue
 * installed and online, then a tool call through the satellites' Service address with a personal token.
 */

type Envelope<T> = { success: boolean; data: T; error?: { message: string } };

/** The API of a deployment: the `data` of its answers, a request taking 30 s at the most. */
export function createApi(base: string) {
  return async function api<T>(
    method: string,
    path: string,
    options: { token?: string; body?: unknown; expect?: number[] } = {},
  ): Promise<T> {
    const body = await requestJson<Envelope<T> | T>(base, method, path, {
      ...options,
      expect: options.expect ?? [200, 201],
      timeoutMs: 30000,
    });
    return body && typeof body === 'object' && 'success' in body ? body.data : (body as T);
  };
}

export type Api = ReturnType<typeof createApi>;

/** Signs the first admin in once gateway-api created the account (right after setup). */
export async function adminSession(
  api: Api,
  admin: { email: string; password: string },
  failed: Promise<never>,
): Promise<string> {
  const status = await eventually(
    'database setup (DATABASE_SETUP=auto)',
    async () => {
      const answer = await api<{ initialized: boolean }>('GET', '/api/db/status');
      return answer.initialized ? answer : undefined;
    },
    120000,
    failed,
  );
  if (!status.initialized) throw new Error('the database was not set up');
  const login = await eventually(
    'the first admin to sign in',
    () => api<{ token: string }>('POST', '/api/auth/login', { body: admin }),
    60000,
    failed,
  );
  return login.token;
}

export async function globalRegistrationToken(api: Api, token: string, description: string): Promise<string> {
  const created = await api<{ token: string }>('POST', '/api/satellites/registration-tokens', {
    token,
    body: { description, expires_in_minutes: 60 },
  });
  return created.token;
}

export type Satellite = { id: string; name: string; status: string };

export async function satellitesActive(
  api: Api,
  token: string,
  names: string[],
  failed: Promise<never>,
  timeoutMs = 120000,
): Promise<Satellite[]> {
  return eventually(
    `satellites ${names.join(', ')} to register and come online`,
    async () => {
      const list = await api<Satellite[]>('GET', '/api/satellites', { token });
      const ours = names.map((name) => list.find((s) => s.name === name));
      return ours.every((s) => s?.status === 'active') ? (ours as Satellite[]) : undefined;
    },
    timeoutMs,
    failed,
  );
}

/** A team, the catalogue's reference server installed into it and online, and a personal token for it. */
export async function installEverything(
  api: Api,
  token: string,
  failed: Promise<never>,
): Promise<{ teamId: string; accessToken: string }> {
  const team = await api<{ id: string }>('POST', '/api/teams', { token, body: { slug: 'day-one', name: 'Day one' } });
  // A personal token is for a team its owner belongs to: whoever creates a team is its first team admin.
  const installation = await api<{ id: string }>('POST', `/api/teams/${team.id}/mcp/installations`, {
    token,
    body: { server_slug: 'server-everything', name: 'everything' },
  });
  await eventually(
    'the installation of server-everything to go online',
    async () => {
      const status = await api<{ status: string }>(
        'GET',
        `/api/teams/${team.id}/mcp/installations/${installation.id}/status`,
        { token },
      );
      return status.status === 'online' ? status : undefined;
    },
    180000,
    failed,
  );
  const access = await api<{ token: string }>('POST', '/api/users/me/access-tokens', {
    token,
    body: { team_id: team.id, name: 'rehearsal' },
  });
  return { teamId: team.id, accessToken: access.token };
}

const textOf = (result: unknown) =>
  ((result as { content?: Array<{ text?: string }> }).content ?? []).map((c) => c.text ?? '').join('');

/** A 2026-07-28 client (stateless): discover, then run `everything:echo`; returns what it echoed. */
export async function modernToolCall(url: string, accessToken: string, message: string): Promise<string> {
  const client = new ModernClient({ name: 'rehearsal', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(
    new ModernTransport(new URL(`${url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${accessToken}` } },
    }),
  );
  try {
    const found = textOf(await client.callTool({ name: 'discover_mcp_tools', arguments: { query: 'echo' } }));
    if (!found.includes('everything:echo'))
      throw new Error(`discovery did not find everything:echo: ${found.slice(0, 300)}`);
    return textOf(
      await client.callTool({
        name: 'execute_mcp_tool',
        arguments: { tool_path: 'everything:echo', arguments: { message } },
      }),
    );
  } finally {
    await client.close();
  }
}

/** A 2025 client: a session (initialize, then calls on it), which must stay on the replica that made it. */
export async function sessionToolCalls(
  url: string,
  accessToken: string,
  message: string,
  calls: number,
): Promise<string[]> {
  const client = new LegacyClient({ name: 'rehearsal-2025', version: '1.0.0' });
  await client.connect(
    new LegacyTransport(new URL(`${url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${accessToken}` } },
    }),
  );
  try {
    const answers: string[] = [];
    for (let i = 0; i < calls; i += 1) {
      answers.push(
        textOf(
          await client.callTool({
            name: 'execute_mcp_tool',
            arguments: { tool_path: 'everything:echo', arguments: { message: `${message} ${i}` } },
          }),
        ),
      );
    }
    return answers;
  } finally {
    await client.close();
  }
}
