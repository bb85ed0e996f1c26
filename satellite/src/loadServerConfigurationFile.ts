import { readFileSync } from 'node:fs';
import { type SatelliteConfiguration, satelliteConfiguration } from '@orbital/contracts';
import { AppError } from '@orbital/errors';

/**
 * Standalone mode's configuration: the file named by SATELLITE_CONFIG_FILE, in the shape the backend
 * distributes (`satelliteConfiguration`). A bad file stops start-up with every problem named; the
 * message carries field paths only, never values (env and headers hold credentials).
 */
export function loadServerConfigurationFile(path: string): SatelliteConfiguration {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new AppError(
      'validation_failed',
      `cannot read SATELLITE_CONFIG_FILE (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new AppError('validation_failed', 'SATELLITE_CONFIG_FILE is not valid JSON');
  }
  const parsed = satelliteConfiguration.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
    throw new AppError(
      'validation_failed',
      `SATELLITE_CONFIG_FILE is not a valid configuration: ${problems.join('; ')}`,
      {
        details: problems,
      },
    );
  }
  const ids = new Set<string>();
  for (const server of parsed.data.servers) {
    if (ids.has(server.installation_id)) {
      throw new AppError(
        'validation_failed',
        `SATELLITE_CONFIG_FILE lists installation ${server.installation_id} twice`,
      );
    }
    ids.add(server.installation_id);
  }
  return parsed.data;
}
