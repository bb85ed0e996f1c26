import type { DbStatus } from '@orbital/contracts';
import { type PostgresConnection, readDatabaseSetupRecord } from '@orbital/db';
import { AppError } from '@orbital/errors';

/**
 * `configured` follows the POSTGRES_* variables; `initialized` the setup record in PostgreSQL (the one
 * place every replica agrees on, unlike a file on one replica's disk). Once initialised, the answer is
 * kept: setup cannot be undone through the API.
 */
export function createDatabaseStatusReader(connection: PostgresConnection | null): () => Promise<DbStatus> {
  let initialized = false;
  return async () => {
    if (!connection) return { configured: false, initialized: false, dialect: 'postgresql' };
    if (!initialized) {
      try {
        initialized = (await readDatabaseSetupRecord(connection)) !== null;
      } catch (cause) {
        throw new AppError('unavailable', 'The database is configured but cannot be reached', { cause });
      }
    }
    return { configured: true, initialized, dialect: 'postgresql' };
  };
}
