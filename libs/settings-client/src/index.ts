export {
  createNatsSettingsSource,
  createSettingsReader,
  type SettingsReader,
  type SettingsSource,
} from './createSettingsReader.ts';
export * from './typedValues.ts';
export { withLastKnownValues } from './withLastKnownValues.ts';
