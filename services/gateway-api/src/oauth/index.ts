/**
 * The OAuth module: gateway-api as the authorization server of satellites' MCP clients. It depends on
 * identity for the signed-in user (sessionOf) and on the satellite authenticator for introspection.
 */
export { createOAuthModule, type OAuthModuleOptions } from './createOAuthModule.ts';
export type { OAuthLifetimes } from './oauthServerRoutes.ts';
export { createSatelliteResourceServerAuthenticator } from './resourceServerAuthenticator.ts';
