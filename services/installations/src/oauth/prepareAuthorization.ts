import {
  type AuthorizationServerMetadata,
  checkResourceAllowed,
  discoverOAuthServerInfo,
  type OAuthClientInformationFull,
  registerClient,
  resourceUrlFromServerUrl,
} from '@modelcontextprotocol/client';
import { orbitalClientMetadata } from '@orbital/contracts';
import { EgressError, type GuardedFetch } from '@orbital/egress';
import { AppError } from '@orbital/errors';

/** What one authorization request needs, found by the MCP authorization specification's discovery. */
export type AuthorizationPlan = {
  issuer: string;
  metadata: AuthorizationServerMetadata;
  /** The RFC 8707 resource indicator: the server's protected resource metadata `resource`, or its URL. */
  resource: string;
  scope: string | undefined;
  client: OAuthClientInformationFull;
};

export type ClientRegistry = {
  /** The client registered earlier at this server for this callback, if any. */
  find(issuer: string, redirectUri: string): Promise<OAuthClientInformationFull | null>;
  /** Keeps a new registration; answers the one kept (another replica may have registered first). */
  save(issuer: string, redirectUri: string, client: OAuthClientInformationFull): Promise<OAuthClientInformationFull>;
};

/** Turns what went wrong talking to the server into an error a team admin can act on. */
export function remoteProblem(what: string, error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (error instanceof EgressError) {
    return error.reason === 'address' || error.reason === 'scheme'
      ? new AppError('validation_failed', `${what}: the address is not allowed (${error.message})`, {
          instructions:
            'An operator may allow the network with REMOTE_OAUTH_ALLOWED_NETWORKS (and plain http with REMOTE_OAUTH_ALLOW_HTTP).',
        })
      : new AppError('unavailable', `${what}: ${error.message}`, { cause: error });
  }
  const cause = (error as { cause?: unknown })?.cause;
  if (cause instanceof EgressError) return remoteProblem(what, cause);
  return new AppError('validation_failed', `${what}: ${(error as Error)?.message ?? String(error)}`, { cause: error });
}

/**
 * Discovery as the MCP authorization specification lays it out: the server's protected resource
 * metadata (RFC 9728; the server's origin when it publishes none, as 2025-03-26 servers do), then its
 * authorization server's metadata (RFC 8414, or OpenID discovery), which must offer the code flow with
 * S256 PKCE. Orbital is then known to the server by its client ID metadata document when the server
 * accepts one and the document is served over https, otherwise by dynamic registration (RFC 7591),
 * registered once per server and callback.
 */
export async function prepareAuthorization(options: {
  serverUrl: string;
  redirectUri: string;
  clientMetadataUrl: string;
  scopes: readonly string[] | undefined;
  fetch: GuardedFetch;
  clients: ClientRegistry;
}): Promise<AuthorizationPlan> {
  const { fetch } = options;
  let found: Awaited<ReturnType<typeof discoverOAuthServerInfo>>;
  try {
    found = await discoverOAuthServerInfo(options.serverUrl, { fetchFn: fetch });
  } catch (error) {
    throw remoteProblem("The server's authorization server could not be discovered", error);
  }
  const metadata = found.authorizationServerMetadata;
  if (!metadata) {
    throw new AppError(
      'validation_failed',
      `The authorization server ${found.authorizationServerUrl} publishes no metadata (RFC 8414 or OpenID discovery)`,
    );
  }
  // The MCP specification asks clients to refuse a server that does not state S256 support.
  if (!metadata.code_challenge_methods_supported?.includes('S256')) {
    throw new AppError(
      'validation_failed',
      `The authorization server ${metadata.issuer} does not offer PKCE with S256, which the MCP authorization specification requires`,
    );
  }
  let resource = String(resourceUrlFromServerUrl(options.serverUrl));
  const stated = found.resourceMetadata?.resource;
  if (stated) {
    if (!checkResourceAllowed({ requestedResource: options.serverUrl, configuredResource: stated })) {
      throw new AppError(
        'validation_failed',
        `The server's protected resource metadata names ${stated}, which does not cover ${options.serverUrl}`,
      );
    }
    resource = stated;
  }
  const scopes = options.scopes?.length ? options.scopes : found.resourceMetadata?.scopes_supported;
  const scope = scopes?.length ? scopes.join(' ') : undefined;
  const client = await clientFor(metadata, options, scope);
  return { issuer: metadata.issuer, metadata, resource, scope, client };
}

async function clientFor(
  metadata: AuthorizationServerMetadata,
  options: { redirectUri: string; clientMetadataUrl: string; fetch: GuardedFetch; clients: ClientRegistry },
  scope: string | undefined,
): Promise<OAuthClientInformationFull> {
  const documentUsable = new URL(options.clientMetadataUrl).protocol === 'https:';
  if (metadata.client_id_metadata_document_supported === true && documentUsable) {
    return { client_id: options.clientMetadataUrl, redirect_uris: [options.redirectUri] };
  }
  const known = await options.clients.find(metadata.issuer, options.redirectUri);
  if (known) return known;
  if (!metadata.registration_endpoint) {
    throw new AppError(
      'validation_failed',
      `The authorization server ${metadata.issuer} accepts neither client ID metadata documents${documentUsable ? '' : ' (and ours is not served over https)'} nor dynamic client registration, so Orbital cannot make itself known to it`,
    );
  }
  let registered: OAuthClientInformationFull;
  try {
    registered = await registerClient(metadata.issuer, {
      metadata,
      clientMetadata: orbitalClientMetadata(options.redirectUri),
      ...(scope ? { scope } : {}),
      fetchFn: options.fetch,
    });
  } catch (error) {
    throw remoteProblem(`Registering Orbital at ${metadata.issuer} failed`, error);
  }
  return options.clients.save(metadata.issuer, options.redirectUri, registered);
}
