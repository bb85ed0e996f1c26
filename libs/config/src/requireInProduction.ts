import type { z } from 'zod';

/**
 * Production is `NODE_ENV=production`: what the container image sets for every process it runs. There a
 * variable whose development default would be wrong (a NATS, Redis or PostgreSQL address on the local
 * machine, an OAuth issuer on localhost) must be given outright, or the process refuses to start.
 */
export const productionNodeEnv = 'production';

const requirements = new WeakMap<z.ZodType, readonly string[]>();

/**
 * Marks variables of a configuration schema as required in production. loadConfig reports each one that
 * is unset there as "is required in production (NODE_ENV=production)", with the schema's own problems.
 */
export function requireInProduction<S extends z.ZodType>(schema: S, variables: readonly string[]): S {
  requirements.set(schema, [...(requirements.get(schema) ?? []), ...variables]);
  return schema;
}

/** The variables `schema` requires in production (none unless marked with requireInProduction). */
export function productionRequirements(schema: z.ZodType): readonly string[] {
  return requirements.get(schema) ?? [];
}
