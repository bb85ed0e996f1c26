import { AppError } from '@orbital/errors';
import type { SatelliteAuthenticator } from '../identity/createAccessResolver.ts';

/**
 * The satellite authenticator until the registry's API-key verification is wired in (issue 7): every
 * request to a satellite route is refused with 401, which a satellite reads as "keep your data and
 * retry". Nothing a satellite sends is ever accepted without a verified key.
 */
export const refuseSatelliteKeys: SatelliteAuthenticator = async () => {
  throw new AppError('unauthenticated', 'Satellite API keys cannot be verified by this gateway yet');
};
