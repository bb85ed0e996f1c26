export * from './buildAsyncApiDocument.ts';
export * from './domainEvents.ts';
export * from './eventStreams.ts';
