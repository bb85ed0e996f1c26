export * from './contractCatalogue.ts';
