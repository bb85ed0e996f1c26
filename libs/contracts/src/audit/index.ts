export * from './auditActions.ts';
export * from './auditSchemas.ts';
export * from './auditSubjects.ts';
