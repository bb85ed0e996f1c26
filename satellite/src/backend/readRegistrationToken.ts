import { readFileSync } from 'node:fs';
import type { Logger } from '@orbital/logger';

/**
 * The registration token: SATELLITE_REGISTRATION_TOKEN, else the file SATELLITE_REGISTRATION_TOKEN_FILE
 * names (a Secret mounted as files, one token per replica, so each replica of a StatefulSet registers
 * once with its own). A file that is not there is no token: a satellite with credentials needs none,
 * and one without says what is missing when it tries to register.
 */
export function readRegistrationToken(
  config: { SATELLITE_REGISTRATION_TOKEN?: string | undefined; SATELLITE_REGISTRATION_TOKEN_FILE?: string | undefined },
  logger: Logger,
): string | undefined {
  if (config.SATELLITE_REGISTRATION_TOKEN) return config.SATELLITE_REGISTRATION_TOKEN;
  const file = config.SATELLITE_REGISTRATION_TOKEN_FILE;
  if (!file) return undefined;
  try {
    const token = readFileSync(file, 'utf8').trim();
    if (token) return token;
    logger.warn({ file }, 'SATELLITE_REGISTRATION_TOKEN_FILE is empty');
  } catch (error) {
    logger.info(
      { file, code: (error as NodeJS.ErrnoException).code },
      'no registration token at SATELLITE_REGISTRATION_TOKEN_FILE (none is needed once registered)',
    );
  }
  return undefined;
}
