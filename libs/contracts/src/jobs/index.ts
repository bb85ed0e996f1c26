export * from './jobSubjects.ts';
