export * from './introspection.ts';
