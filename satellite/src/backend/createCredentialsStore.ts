import { randomBytes } from 'node:crypto';
import { chmod, mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { AppError } from '@orbital/errors';
import { z } from 'zod';

/** What registration gave the satellite: its id and permanent API key. */
export const satelliteCredentials = z.object({
  satellite_id: z.string().min(1),
  api_key: z.string().min(1),
  /** The backend that issued them; a different BACKEND_URL is worth a warning, not a new registration. */
  backend_url: z.string(),
  satellite_type: z.enum(['global', 'team']).nullable().default(null),
  team_id: z.string().nullable().default(null),
  registered_at: z.string(),
});
export type SatelliteCredentials = z.infer<typeof satelliteCredentials>;

export type CredentialsStore = {
  readonly path: string;
  /** null when the satellite never registered; a damaged file is an error, never silently replaced. */
  load(): Promise<SatelliteCredentials | null>;
  save(credentials: SatelliteCredentials): Promise<void>;
};

const fileName = 'credentials.json';

/**
 * The satellite's credentials on disk, in SATELLITE_STATE_DIR: the directory 0700, the file 0600
 * (owner only: the API key is permanent). Written atomically (temporary file in the same directory,
 * fsync, rename), so a crash mid-write leaves the old credentials or the new ones, never half a file.
 * Nothing here deletes credentials: only a successful re-registration replaces them.
 */
export function createCredentialsStore(options: { dir: string }): CredentialsStore {
  const dir = resolve(options.dir);
  const path = join(dir, fileName);

  const ensureDir = async () => {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    // mkdir's mode is filtered by the umask and ignored for an existing directory: set it outright.
    const info = await stat(dir);
    if ((info.mode & 0o777) !== 0o700) await chmod(dir, 0o700);
  };

  return {
    path,
    async load() {
      let text: string;
      try {
        text = await readFile(path, 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw new AppError('internal', `cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
      }
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        throw new AppError(
          'validation_failed',
          `${path} is not valid JSON: restore it from a backup, or move it away and register again with a new SATELLITE_REGISTRATION_TOKEN`,
        );
      }
      const parsed = satelliteCredentials.safeParse(json);
      if (!parsed.success) {
        throw new AppError(
          'validation_failed',
          `${path} does not hold satellite credentials (${parsed.error.issues.map((i) => i.path.join('.')).join(', ')}): restore it, or move it away and register again with a new SATELLITE_REGISTRATION_TOKEN`,
        );
      }
      // Tighten a file someone loosened by hand; the key is as good as a password.
      const info = await stat(path);
      if ((info.mode & 0o077) !== 0) await chmod(path, 0o600);
      return parsed.data;
    },
    async save(credentials) {
      await ensureDir();
      const temporary = join(dir, `.${fileName}.${randomBytes(6).toString('hex')}.tmp`);
      const handle = await open(temporary, 'wx', 0o600);
      try {
        await handle.writeFile(`${JSON.stringify(satelliteCredentials.parse(credentials), null, 2)}\n`);
        await handle.sync();
      } finally {
        await handle.close();
      }
      try {
        await rename(temporary, path);
      } catch (error) {
        await rm(temporary, { force: true });
        throw error;
      }
      // The rename is durable once the directory entry is.
      const dirHandle = await open(dir, 'r');
      try {
        await dirHandle.sync();
      } finally {
        await dirHandle.close();
      }
    },
  };
}
