export * from './accountViews.ts';
export * from './identitySubjects.ts';
export * from './identityViews.ts';
export * from './permissions.ts';
export * from './signInMethods.ts';
