import { InvalidClientError, OAuthError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { createAddressPolicy, EgressError, fetchGuarded, nonPublicAddresses } from '@orbital/egress';
import type { Logger } from '@orbital/logger';
import { type AcceptedClient, acceptClientMetadata } from './acceptClientMetadata.ts';

export type ClientMetadataDocumentOptions = {
  /** Plain http client ids as well as https: development only (the configuration refuses it with an https issuer). */
  allowHttp: boolean;
  /** Networks an operator lets documents be fetched from although they are not public (CIDR blocks). */
  allowNetworks: readonly string[];
  timeoutMs: number;
  maxBytes: number;
  /** Documents (and refusals) kept in memory at most; the least recently used is dropped first. */
  maxEntries: number;
};

export const defaultClientMetadataDocumentOptions: ClientMetadataDocumentOptions = {
  allowHttp: false,
  allowNetworks: [],
  timeoutMs: 5000,
  maxBytes: 5120,
  maxEntries: 1000,
};

export type DocumentClient = AcceptedClient & { clientId: string };

export type ClientMetadataDocuments = {
  /** The client a metadata document URL describes, fetched or from the cache; InvalidClientError otherwise. */
  load(clientId: string): Promise<DocumentClient>;
};

/** A client id that is a URL names its own metadata document; ids this server issues never are. */
export const isMetadataDocumentClientId = (clientId: string) => /^https?:\/\//i.test(clientId);

/** How long a document is reused when its server says nothing, and at most whatever it says. */
const defaultTtlMs = 5 * 60_000;
const maxTtlMs = 24 * 3600_000;
/** A refused document is refused again for a little while, so a reloaded consent page does not refetch it. */
const refusalTtlMs = 10_000;

function cacheLifetimeMs(cacheControl: string | undefined): number {
  const directives = (cacheControl ?? '').toLowerCase();
  if (/(^|,)\s*(no-store|no-cache)\b/.test(directives)) return 0;
  const maxAge = /(^|,)\s*max-age\s*=\s*"?(\d+)/.exec(directives)?.[2];
  return maxAge === undefined ? defaultTtlMs : Math.min(Number(maxAge) * 1000, maxTtlMs);
}

function clientIdProblem(clientId: string, allowHttp: boolean): string | null {
  if (clientId.length > 2000) return 'is longer than 2000 characters';
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return 'is not a URL';
  }
  if (url.protocol !== 'https:' && !(allowHttp && url.protocol === 'http:')) return 'must be an https URL';
  if (url.username || url.password) return 'must not contain credentials';
  if (url.hash) return 'must not have a fragment';
  if (url.pathname === '/') return 'must have a path, such as https://example.com/client.json';
  // The document must name exactly this URL, so only its one spelling is accepted: no dot segments,
  // lowercase scheme and host, no default port.
  if (url.href !== clientId) return `must be written in its normal form (${url.href})`;
  return null;
}

/**
 * Client ID Metadata Documents: a client whose id is an https URL describes itself in the JSON
 * document at that URL, so it needs no registration. Fetching a URL that anyone may type is guarded:
 * https only, public addresses only (unless an operator allows a network), no redirects, a time and
 * a size limit; documents are cached as their server's Cache-Control says, within limits, and one
 * fetch serves every concurrent request for the same client.
 */
export function createClientMetadataDocuments(
  options: ClientMetadataDocumentOptions & { logger: Logger; now?: () => number },
): ClientMetadataDocuments {
  const now = options.now ?? Date.now;
  const policy = createAddressPolicy({ refuse: nonPublicAddresses, allowNetworks: options.allowNetworks });
  type Outcome = { expiresAt: number; client?: DocumentClient; error?: OAuthError };
  const cache = new Map<string, Outcome>();
  const inflight = new Map<string, Promise<Outcome>>();

  const refuse = (clientId: string, reason: string) =>
    new InvalidClientError(`The client metadata document ${clientId} ${reason}`);

  async function fetchDocument(clientId: string): Promise<{ client: DocumentClient; ttlMs: number }> {
    const problem = clientIdProblem(clientId, options.allowHttp);
    if (problem) throw refuse(clientId, problem);
    let response: Awaited<ReturnType<typeof fetchGuarded>>;
    try {
      response = await fetchGuarded(new URL(clientId), {
        policy,
        allowHttp: options.allowHttp,
        timeoutMs: options.timeoutMs,
        maxBytes: options.maxBytes,
        headers: { accept: 'application/json' },
      });
    } catch (error) {
      if (error instanceof EgressError) throw refuse(clientId, `could not be fetched: ${error.message}`);
      throw error;
    }
    if (response.status >= 300 && response.status < 400) {
      throw refuse(clientId, 'redirects elsewhere; it must be served at its client_id URL');
    }
    if (response.status !== 200) throw refuse(clientId, `answered HTTP ${response.status}`);
    let document: unknown;
    try {
      document = JSON.parse(response.body.toString('utf8'));
    } catch {
      throw refuse(clientId, 'is not JSON');
    }
    if (typeof document !== 'object' || document === null || Array.isArray(document)) {
      throw refuse(clientId, 'is not a JSON object');
    }
    const fields = document as Record<string, unknown>;
    if (fields.client_id !== clientId) throw refuse(clientId, 'names a different client_id than its own URL');
    if (typeof fields.client_name !== 'string' || fields.client_name.length === 0) {
      throw refuse(clientId, 'has no client_name');
    }
    // Anyone can read the document, so a secret in it is no secret: such clients are public clients.
    if ('client_secret' in fields || 'client_secret_expires_at' in fields) {
      throw refuse(clientId, 'must not contain a client secret');
    }
    let accepted: AcceptedClient;
    try {
      accepted = acceptClientMetadata(fields, { defaultAuthMethod: 'none', authMethods: ['none'] });
    } catch (error) {
      if (error instanceof OAuthError) throw refuse(clientId, `is not valid: ${error.message}`);
      throw error;
    }
    return { client: { ...accepted, clientId }, ttlMs: cacheLifetimeMs(response.headers['cache-control']) };
  }

  function remember(clientId: string, outcome: Outcome) {
    cache.delete(clientId);
    if (outcome.expiresAt <= now()) return;
    while (cache.size >= options.maxEntries) {
      const oldest = cache.keys().next().value;
      if (oldest === undefined) break;
      cache.delete(oldest);
    }
    cache.set(clientId, outcome);
  }

  async function resolve(clientId: string): Promise<Outcome> {
    try {
      const { client, ttlMs } = await fetchDocument(clientId);
      options.logger.info(
        { event: 'oauth.client_document_fetched', client_id: clientId },
        'client metadata document fetched',
      );
      const outcome = { expiresAt: now() + ttlMs, client };
      remember(clientId, outcome);
      return outcome;
    } catch (error) {
      if (!(error instanceof OAuthError)) throw error;
      options.logger.warn(
        { event: 'oauth.client_document_refused', client_id: clientId, reason: error.message },
        'client metadata document refused',
      );
      const outcome = { expiresAt: now() + refusalTtlMs, error };
      remember(clientId, outcome);
      return outcome;
    }
  }

  return {
    async load(clientId) {
      let outcome = cache.get(clientId);
      if (outcome && outcome.expiresAt > now()) {
        // Most recently used last: the first entry is the one dropped when the cache is full.
        cache.delete(clientId);
        cache.set(clientId, outcome);
      } else {
        let pending = inflight.get(clientId);
        if (!pending) {
          pending = resolve(clientId).finally(() => inflight.delete(clientId));
          inflight.set(clientId, pending);
        }
        outcome = await pending;
      }
      if (outcome.error) throw outcome.error;
      return outcome.client as DocumentClient;
    },
  };
}
