export { type CreateLoggerOptions, createLogger, type Logger, redactPaths } from './createLogger.ts';
