export type { CommonQueryMethods, DatabasePool, DatabaseTransactionConnection } from 'slonik';
export { sql } from 'slonik';
export {
  createDatabasePool,
  createLivePool,
  createResultParserInterceptor,
  type LivePool,
} from './createDatabasePool.ts';
export { createOutboxFlush, type OutboxFlush } from './createOutboxFlush.ts';
export {
  classifyDatabaseError,
  databaseUnavailable,
  isDatabaseUnavailable,
  isTransientDatabaseError,
} from './databaseErrors.ts';
export {
  type DatabaseSetupRecord,
  readDatabaseSetupRecord,
  withAdvisoryLock,
  writeDatabaseSetupRecord,
} from './databaseSetupRecord.ts';
export { type MigrateOptions, type MigrateResult, MigrationError, migrateSchema } from './migrateSchema.ts';
export {
  connectionUri,
  type PostgresConnection,
  pgClientConfig,
  postgresConnectionFromEnv,
} from './postgresConnection.ts';
export { isoTimestampColumn, timestampToIso } from './timestamps.ts';
