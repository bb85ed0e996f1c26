import {
  getOAuthProtectedResourceMetadataUrl,
  type OAuthProtectedResourceMetadata,
} from '@modelcontextprotocol/server';
import { mcpScope } from '@orbital/contracts';
import type { FastifyInstance } from 'fastify';

/**
 * RFC 9728 protected resource metadata: the satellite's /mcp is the resource, the backend its
 * authorization server. Served at the path-aware address the SDK computes
 * (`/.well-known/oauth-protected-resource/mcp`, named in every 401) and at the root form, which
 * clients of older protocol revisions try.
 */
export function registerProtectedResourceMetadata(
  app: FastifyInstance,
  options: { resource: URL; authorizationServer: URL },
): { metadataUrl: string } {
  const metadata: OAuthProtectedResourceMetadata = {
    resource: options.resource.href,
    authorization_servers: [options.authorizationServer.href.replace(/\/$/, '')],
    scopes_supported: [mcpScope],
    bearer_methods_supported: ['header'],
    resource_name: 'service-satellite',
  };
  const metadataUrl = getOAuthProtectedResourceMetadataUrl(options.resource);
  const paths = new Set([new URL(metadataUrl).pathname, '/.well-known/oauth-protected-resource']);
  for (const path of paths) {
    app.get(path, async (_request, reply) => reply.header('cache-control', 'max-age=300').send(metadata));
  }
  return { metadataUrl };
}
