export * from './db/index.ts';
export * from './identity/index.ts';
export * from './identity.ts';
export * from './jobs/index.ts';
export * from './reply.ts';
export * from './satellite/index.ts';
export * from './settings/index.ts';
export * from './subject.ts';
