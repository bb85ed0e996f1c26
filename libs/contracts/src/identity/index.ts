export * from './identitySubjects.ts';
export * from './permissions.ts';
