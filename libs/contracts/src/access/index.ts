export * from './authorizeRequest.ts';
export * from './subjectAccess.ts';
