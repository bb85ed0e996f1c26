import type { AccessGrant } from '@orbital/access';
import {
  installationsConfigForSatelliteSubject,
  type SatelliteConfiguration,
  type SatelliteGlobalSettings,
  type ServerConfiguration,
  serviceIdentity,
} from '@orbital/contracts';
import { AppError } from '@orbital/errors';
import { createNatsSettingsSource, createSettingsReader } from '@orbital/settings-client';
import * as store from '../db/registryStore.ts';
import { discoverySettingsOf } from './discoverySettingsOf.ts';
import { mergeInstallationConfigs } from './mergeInstallationConfigs.ts';
import type { RegistryDeps } from './registryDeps.ts';

/**
 * GET /api/satellites/:id/config: a global satellite gets every team's installations, a team satellite
 * its team's only. The installations service answers with the stored levels (secrets decrypted into
 * that reply alone); the merge happens here and the result goes straight back to the satellite.
 */
export function createConfigurationDistribution(deps: RegistryDeps) {
  const { pool, bus, logger } = deps;
  const settingsReader = createSettingsReader(createNatsSettingsSource(bus, serviceIdentity('satellite-registry')));

  /**
   * Read on every fetch, not cached here: the settings service keeps its own cache coherent across its
   * replicas, so a change reaches each satellite with its next configuration. When the settings cannot
   * be read, the reply goes without them and the satellite keeps the settings it holds; its servers
   * still reach it.
   */
  const satelliteSettings = async (
    satelliteId: string,
    withKeys: boolean,
  ): Promise<SatelliteGlobalSettings | undefined> => {
    try {
      const [docs, discovery] = await Promise.all([
        settingsReader.boolean('global.enable_swagger_docs', true),
        settingsReader.group('discovery', { withPrefix: true }),
      ]);
      const models = discoverySettingsOf(discovery, withKeys);
      if (models.dropped.length > 0) {
        logger.warn(
          { event: 'config.discovery_setting_ignored', satellite_id: satelliteId, keys: models.dropped },
          'discovery settings that are not valid were left out of the configuration',
        );
      }
      return { enable_swagger_docs: docs ?? true, discovery: models.settings };
    } catch (error) {
      logger.warn(
        { event: 'config.settings_unavailable', satellite_id: satelliteId, err: error },
        'global settings could not be read; configuration sent without them',
      );
      return undefined;
    }
  };

  return async function configurationFor(
    { satellite_id }: { satellite_id: string },
    access: AccessGrant,
    requestId: string,
  ): Promise<SatelliteConfiguration> {
    // The subject admits people only as global admins: they see what the satellite would run.
    const admin = access.userId() !== null;
    // The row, not the identity header, decides the scope: a satellite's team is what it registered with.
    const satellite = await store.findSatellite(pool.get(), satellite_id);
    if (admin && !satellite) throw new AppError('not_found', 'No such satellite');
    if (!satellite || satellite.status === 'revoked') {
      throw new AppError('unauthenticated', 'The satellite is not registered or its key was revoked');
    }
    const teamIds = satellite.satellite_type === 'team' && satellite.team_id ? [satellite.team_id] : null;
    const [{ installations }, settings] = await Promise.all([
      bus.request(
        installationsConfigForSatelliteSubject,
        { team_ids: teamIds },
        { identity: serviceIdentity('satellite-registry'), requestId },
      ),
      // A team satellite's operator is not trusted with the platform's model keys (they give their own).
      satelliteSettings(satellite_id, satellite.satellite_type !== 'team' && !admin),
    ]);
    const { servers, skipped } = mergeInstallationConfigs(installations, teamIds ? new Set(teamIds) : null);
    for (const skip of skipped) {
      // Ids and the kind of problem only: the configuration itself may hold secrets.
      logger.warn(
        { event: 'config.installation_skipped', satellite_id, ...skip },
        skip.reason === 'outside_scope'
          ? 'installations service sent an installation outside the satellite scope; dropped'
          : 'installation skipped: its stored configuration is not valid',
      );
    }
    // A person sees what the satellite would run, never the credentials in it: environment and header
    // values are write-only everywhere but on the way to the satellite itself.
    const shown = admin ? servers.map(withoutSecretValues) : servers;
    return settings ? { servers: shown, settings } : { servers: shown };
  };
}

const hidden = '********';

function withoutSecretValues(server: ServerConfiguration): ServerConfiguration {
  const mask = (values: Record<string, string>) => Object.fromEntries(Object.keys(values).map((k) => [k, hidden]));
  return { ...server, env: mask(server.env), headers: mask(server.headers) };
}
