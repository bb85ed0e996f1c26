export * from './domainEvents.ts';
export * from './eventStreams.ts';
