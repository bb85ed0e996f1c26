export * from './db/index.ts';
export * from './identity.ts';
export * from './reply.ts';
export * from './subject.ts';
