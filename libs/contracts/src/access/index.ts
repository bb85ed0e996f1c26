export * from './subjectAccess.ts';
