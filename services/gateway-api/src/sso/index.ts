/**
 * Sign-in with an outside account (code hosting, OpenID Connect). What the rest of gateway-api may use
 * is exported here; everything else in this folder is the module's own.
 */
export { createSsoModule, type SsoModuleOptions } from './createSsoModule.ts';
