import { uuidField } from '@orbital/contracts';
import { z } from 'zod';

/**
 * Path parameters shared by the routes of several modules, each an id whose wrong shape is answered
 * with a 400 naming it, before any service is asked. A UUID may come in either case; what the route,
 * its access check and every service see is the lower-case form.
 */
export const uuidOf = (what: string) => uuidField({ error: `must be a ${what} id (UUID)` });

export const teamParams = z.object({ teamId: uuidOf('team') });
export const memberParams = teamParams.extend({ userId: uuidOf('user') });
export const userParams = z.object({ userId: uuidOf('user') });
export const satelliteParams = z.object({ id: uuidOf('satellite') }).strict();
export const installationParams = teamParams.extend({ installationId: uuidOf('installation') });

/** What a route's path names, as the services' subjects take it: a team, a satellite, an installation of a team. */
export const teamOf = ({ params }: { params: z.output<typeof teamParams> }) => ({ team_id: params.teamId });
export const satelliteOf = ({ params }: { params: z.output<typeof satelliteParams> }) => ({ satellite_id: params.id });
export const installationOf = ({ params }: { params: z.output<typeof installationParams> }) => ({
  ...teamOf({ params }),
  installation_id: params.installationId,
});
