import { CustomOAuthError, InvalidClientMetadataError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { OAuthClientMetadataSchema } from '@modelcontextprotocol/sdk/shared/auth.js';
import { z } from 'zod';
import { type ApplicationType, redirectUriProblem } from './redirectUriProblem.ts';

export const supportedAuthMethods = ['none', 'client_secret_post', 'client_secret_basic'] as const;
export type AuthMethod = (typeof supportedAuthMethods)[number];
export const supportedGrantTypes = ['authorization_code', 'refresh_token'];

/** RFC 7591 client metadata, plus OpenID Connect's `application_type`, which the MCP SDK's schema drops. */
const clientMetadataSchema = OAuthClientMetadataSchema.extend({
  application_type: z.enum(['native', 'web'], 'application_type must be "native" or "web"').optional(),
});
export type ClientMetadata = z.infer<typeof clientMetadataSchema>;

export type AcceptedClient = {
  /** What is stored and echoed back: the metadata with the method and grant types that apply. */
  metadata: ClientMetadata & { token_endpoint_auth_method: AuthMethod; grant_types: string[] };
  authMethod: AuthMethod;
  clientName: string | null;
  redirectUris: string[];
  applicationType: ApplicationType | undefined;
};

/** The first failure of a zod parse, for an OAuth error description (never echoes a value). */
export const firstIssue = (error: z.ZodError) => {
  const issue = error.issues[0];
  return issue ? `${issue.path.join('.') || 'request'}: ${issue.message}` : 'invalid request';
};

/**
 * Checks the metadata a client describes itself with, whether it registered it (RFC 7591) or hosts it
 * as a Client ID Metadata Document, and settles what applies: the authentication method (the
 * caller's default when absent), grant types, redirect URIs under the rules of its application type.
 */
export function acceptClientMetadata(
  input: unknown,
  rules: { defaultAuthMethod: AuthMethod; authMethods: readonly AuthMethod[] },
): AcceptedClient {
  const parsed = clientMetadataSchema.safeParse(input ?? {});
  if (!parsed.success) throw new InvalidClientMetadataError(firstIssue(parsed.error as z.ZodError));
  const metadata = parsed.data;
  if (metadata.redirect_uris.length === 0 || metadata.redirect_uris.length > 10) {
    throw new CustomOAuthError('invalid_redirect_uri', 'Register between 1 and 10 redirect URIs');
  }
  for (const uri of metadata.redirect_uris) {
    const problem = redirectUriProblem(uri, metadata.application_type);
    if (problem) throw new CustomOAuthError('invalid_redirect_uri', `redirect_uri ${problem}`);
  }
  const method = metadata.token_endpoint_auth_method ?? rules.defaultAuthMethod;
  if (!(rules.authMethods as readonly string[]).includes(method)) {
    throw new InvalidClientMetadataError(`token_endpoint_auth_method must be one of ${rules.authMethods.join(', ')}`);
  }
  const grantTypes = metadata.grant_types ?? ['authorization_code'];
  if (grantTypes.some((g) => !supportedGrantTypes.includes(g))) {
    throw new InvalidClientMetadataError(`grant_types must be among ${supportedGrantTypes.join(', ')}`);
  }
  if ((metadata.response_types ?? ['code']).some((r) => r !== 'code')) {
    throw new InvalidClientMetadataError('response_types must be ["code"]');
  }
  if (metadata.client_name && metadata.client_name.length > 200) {
    throw new InvalidClientMetadataError('client_name is longer than 200 characters');
  }
  return {
    metadata: { ...metadata, token_endpoint_auth_method: method as AuthMethod, grant_types: grantTypes },
    authMethod: method as AuthMethod,
    clientName: metadata.client_name ?? null,
    redirectUris: metadata.redirect_uris,
    applicationType: metadata.application_type,
  };
}
