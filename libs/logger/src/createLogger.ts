import { type Logger, type LoggerOptions, pino } from 'pino';

/**
 * Paths pino blanks out wherever they appear in a log object. The wildcard forms catch the same keys
 * one level down (request headers, config objects, bodies).
 */
const sensitiveKeys = [
  'authorization',
  'cookie',
  'set-cookie',
  'password',
  'passwordHash',
  'password_hash',
  'token',
  'accessToken',
  'access_token',
  'refreshToken',
  'refresh_token',
  'apiKey',
  'api_key',
  'secret',
  'clientSecret',
  'client_secret',
  'connectionString',
  'connectionUri',
  'databaseUrl',
  'value',
  'encryptedValue',
  'registrationToken',
  'registration_token',
  'env',
  'headers.authorization',
  'headers.cookie',
];

export const redactPaths: readonly string[] = [
  ...sensitiveKeys,
  ...sensitiveKeys.map((key) => `*.${key}`),
  ...sensitiveKeys.map((key) => `*.*.${key}`),
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
];

export type CreateLoggerOptions = {
  name: string;
  level?: LoggerOptions['level'];
  /** Where lines go; tests pass a stream to read what was logged. Defaults to stdout. */
  destination?: NodeJS.WritableStream;
};

export function createLogger(options: CreateLoggerOptions): Logger {
  const pinoOptions: LoggerOptions = {
    name: options.name,
    level: options.level ?? 'info',
    redact: { paths: [...redactPaths], censor: '[redacted]' },
    base: { service: options.name },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
  };
  return options.destination ? pino(pinoOptions, options.destination) : pino(pinoOptions);
}

export type { Logger };
