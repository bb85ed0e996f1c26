export * from './buildAsyncApiDocument.ts';
export * from './contractCatalogue.ts';
