import { AppError } from '@orbital/errors';
import type { SatelliteAuthenticator } from '../src/http/defineRoute.ts';

/** A satellite authenticator that refuses every key, for tests of the 401 path of satellite routes. */
export const refuseSatelliteKeys: SatelliteAuthenticator = async () => {
  throw new AppError('unauthenticated', 'Satellite API keys cannot be verified by this gateway');
};
