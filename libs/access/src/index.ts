export * from './authorizeRequest.ts';
export * from './rolePermissions.ts';
