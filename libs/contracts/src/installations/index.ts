export * from './clientActivity.ts';
export * from './installationEvents.ts';
export * from './installationSchemas.ts';
export * from './installationSubjects.ts';
export * from './remoteOAuth.ts';
export * from './serverJsonImport.ts';
export * from './toolPolicies.ts';
export * from './transportOwnedHeaders.ts';
