import {
  type CallerIdentity,
  installationsConfigForSatelliteSubject,
  type SatelliteConfiguration,
  serviceIdentity,
} from '@orbital/contracts';
import { AppError } from '@orbital/errors';
import * as store from '../db/registryStore.ts';
import { mergeInstallationConfigs } from './mergeInstallationConfigs.ts';
import { requireSatellite } from './registryAccess.ts';
import type { RegistryDeps } from './registryDeps.ts';

/**
 * GET /api/satellites/:id/config: a global satellite gets every team's installations, a team satellite
 * its team's only. The installations service answers with the stored levels (secrets decrypted into
 * that reply alone); the merge happens here and the result goes straight back to the satellite.
 */
export function createConfigurationDistribution(deps: RegistryDeps) {
  const { pool, bus, logger } = deps;
  return async function configurationFor(
    { satellite_id }: { satellite_id: string },
    identity: CallerIdentity,
    requestId: string,
  ): Promise<SatelliteConfiguration> {
    requireSatellite(identity, satellite_id);
    // The row, not the identity header, decides the scope: a satellite's team is what it registered with.
    const satellite = await store.findSatellite(pool.get(), satellite_id);
    if (!satellite || satellite.status === 'revoked') {
      throw new AppError('unauthenticated', 'The satellite is not registered or its key was revoked');
    }
    const teamIds = satellite.satellite_type === 'team' && satellite.team_id ? [satellite.team_id] : null;
    const { installations } = await bus.request(
      installationsConfigForSatelliteSubject,
      { team_ids: teamIds },
      { identity: serviceIdentity('satellite-registry'), requestId },
    );
    const { servers, skipped } = mergeInstallationConfigs(installations, teamIds ? new Set(teamIds) : null);
    for (const skip of skipped) {
      // Ids and the kind of problem only: the configuration itself may hold secrets.
      logger.warn(
        { event: 'config.installation_skipped', satelliteId: satellite_id, ...skip },
        skip.reason === 'outside_scope'
          ? 'installations service sent an installation outside the satellite scope; dropped'
          : 'installation skipped: its stored configuration is not valid',
      );
    }
    return { servers };
  };
}
