export * from './apiKeyFormat.ts';
export * from './installationConfigSubject.ts';
export * from './registryEvents.ts';
export * from './registrySchemas.ts';
export * from './registrySubjects.ts';
