export * from './buildAsyncApiDocument.ts';
export * from './buildSubjectReference.ts';
export * from './contractCatalogue.ts';
