/**
 * The identity module: users, teams, memberships and sessions, their routes, the access resolver every
 * route goes through, and the identity.* subjects. What the rest of gateway-api may use is exported
 * here; everything else in this folder is the module's own.
 */
export { sessionCookieName, sessionOf } from './createAccessResolver.ts';
export { createIdentityModule, type IdentityModule, type IdentityModuleOptions } from './createIdentityModule.ts';
export { type LoginGate, loginDisabledMessage } from './createLoginGate.ts';
export { defaultLoginRateLimits, type LoginRateLimits } from './createLoginRateLimiter.ts';
export { type FirstAdmin, firstAdminFromConfig } from './ensureFirstAdmin.ts';
