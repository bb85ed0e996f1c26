export * from './dbSubjects.ts';
