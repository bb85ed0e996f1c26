import { Client, SSEClientTransport, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { ServerConfiguration } from '@orbital/contracts';
import type { ManagedServer } from '../runtime/managedServer.ts';
import { upstreamProtocolVersions } from '../sdkAdaptation/protocolVersions.ts';

export type CredentialOutcome = 'valid' | 'token_expired' | 'token_revoked' | 'failed';
export type CredentialCheck = { outcome: CredentialOutcome; message: string | null };

/**
 * How a satellite validates an installation's credentials (valid, token expired, token revoked, or
 * failed). A remote server is asked the way a client would: a fresh connection with the configured
 * headers (`server/discover`, or `initialize` for a 2025 server), then `tools/list`. Every HTTP status is watched on the way: a 401 means the
 * credential is no longer accepted (expired, or revoked when the server says so in WWW-Authenticate),
 * a 403 that it was revoked or lost its rights; both need a new authorisation (requires_reauth). Any
 * other failure is `failed`. A stdio server's credentials live in its environment, which the server
 * read at start: its process answering `tools/list` (it is online) is the only evidence there is.
 */
export async function validateCredentials(
  config: ServerConfiguration,
  server: ManagedServer | undefined,
  options: { timeoutMs: number },
): Promise<CredentialCheck> {
  if (config.transport === 'stdio') {
    const status = server?.status();
    if (status === 'online') return { outcome: 'valid', message: null };
    return {
      outcome: 'failed',
      message: server ? `the server is ${status}, so its credentials cannot be checked` : 'the server is not running',
    };
  }
  const statuses: number[] = [];
  let authenticate: string | null = null;
  const fetchWithHeaders: typeof fetch = async (url, init) => {
    const headers = new Headers(init?.headers);
    for (const [name, value] of Object.entries(config.headers)) headers.set(name, value);
    const response = await fetch(url, { ...init, headers });
    statuses.push(response.status);
    if (response.status === 401 || response.status === 403) authenticate = response.headers.get('www-authenticate');
    return response;
  };
  const url = new URL(config.url as string);
  const transport =
    config.transport === 'sse'
      ? new SSEClientTransport(url, { fetch: fetchWithHeaders })
      : new StreamableHTTPClientTransport(url, { fetch: fetchWithHeaders });
  const client = new Client(
    { name: 'service-satellite-credential-check', version: '0.1.0' },
    { versionNegotiation: { mode: 'auto' }, supportedProtocolVersions: [...upstreamProtocolVersions] },
  );
  try {
    await client.connect(transport, { timeout: options.timeoutMs });
    await client.listTools(undefined, { timeout: options.timeoutMs });
    return { outcome: 'valid', message: null };
  } catch (error) {
    const refused = statuses.find((s) => s === 401 || s === 403);
    const said = (authenticate ?? '').toLowerCase();
    if (refused === 401) {
      return {
        outcome: said.includes('revoked') ? 'token_revoked' : 'token_expired',
        message: 'the server refused the credentials (HTTP 401)',
      };
    }
    if (refused === 403) return { outcome: 'token_revoked', message: 'the server refused access (HTTP 403)' };
    return { outcome: 'failed', message: `credential check failed: ${(error as Error).message}`.slice(0, 4000) };
  } finally {
    await client.close().catch(() => {});
  }
}

/** The installation status a credential check leads to. */
export function statusAfterCheck(outcome: CredentialOutcome): 'online' | 'requires_reauth' | 'error' {
  if (outcome === 'valid') return 'online';
  if (outcome === 'failed') return 'error';
  return 'requires_reauth';
}
