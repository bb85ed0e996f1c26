import { z } from 'zod';
import { logEnv, natsEnv, natsProductionVariables, postgresEnv, postgresProductionVariables } from './commonEnv.ts';
import { requireInProduction } from './requireInProduction.ts';

/**
 * The configuration schema of a service that keeps its data in its own PostgreSQL schema and serves
 * subjects over NATS (settings, satellite-registry, installations): the connection and log variables
 * every such service reads, the database and NATS addresses required in production, and `own`, what is
 * the service's alone.
 */
export function databaseServiceConfig<Own extends z.ZodRawShape>(own: Own) {
  return requireInProduction(z.object({ ...postgresEnv.shape, ...natsEnv.shape, ...logEnv.shape, ...own }), [
    ...postgresProductionVariables,
    ...natsProductionVariables,
  ]);
}
