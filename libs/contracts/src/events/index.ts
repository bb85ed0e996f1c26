export * from './defineBroadcast.ts';
export * from './defineEvent.ts';
export * from './defineEventBatch.ts';
export * from './eventStreams.ts';
