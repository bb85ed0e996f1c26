export * from './exceedsNestingDepth.ts';
