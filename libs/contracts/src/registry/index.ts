export * from './apiKeyFormat.ts';
export * from './heartbeatEvents.ts';
export * from './installationConfigSubject.ts';
export * from './registrySchemas.ts';
export * from './registrySubjects.ts';
