export * from './commands.ts';
export * from './eventBatch.ts';
export * from './eventDescriptions.ts';
export * from './events.ts';
export * from './installationStatus.ts';
export * from './satelliteEventDefinitions.ts';
export * from './serverConfiguration.ts';
export * from './toolPolicy.ts';
