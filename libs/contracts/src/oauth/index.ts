export * from './accessTokenView.ts';
export * from './introspection.ts';
