export * from './settingsSchemas.ts';
export * from './settingsSubjects.ts';
