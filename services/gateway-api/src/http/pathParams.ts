import { z } from 'zod';

/**
 * Path parameters shared by the routes of several modules, each an id whose wrong shape is answered
 * with a 400 naming it, before any service is asked.
 */
const uuidOf = (what: string) => z.uuid({ error: `must be a ${what} id (UUID)` });

export const teamParams = z.object({ teamId: uuidOf('team') });
export const memberParams = teamParams.extend({ userId: uuidOf('user') });
export const userParams = z.object({ userId: uuidOf('user') });
export const satelliteParams = z.object({ id: uuidOf('satellite') }).strict();
export const installationParams = teamParams.extend({ installationId: uuidOf('installation') });
