import { z } from 'zod';

const uuidShape = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether an id has the shape of a UUID, in either case. */
export function isUuidShaped(id: string): boolean {
  return uuidShape.test(id);
}

/**
 * The one form an id is compared, stored and announced in: a UUID in lower case, as PostgreSQL writes
 * it back. A `uuid` column reads either case, but a `text` column, a subject token, a cache key or a
 * comparison in code does not, so a UUID written in capitals would name nothing there. Any other id is
 * left as written (a test's `team-1`, a standalone satellite's server name).
 */
export function canonicalId(id: string): string {
  // Most ids come in lower case: one without capitals is its own canonical form, whatever its shape,
  // and lower-casing finds that faster than the pattern (three ids an event, on the consumer's path).
  const lower = id.toLowerCase();
  return lower === id || !uuidShape.test(id) ? id : lower;
}

/**
 * An id the backend issues as a UUID (a satellite, an installation, a token, a command, a user, a
 * request log): accepted in either case and handed on in lower case, so every service sees one form
 * whatever the caller wrote. Use it for every such id a request carries, in a path, a query, a body or
 * a subject's request.
 */
export function uuidField(params?: Parameters<typeof z.uuid>[0]) {
  return z.uuid(params).overwrite((id) => id.toLowerCase());
}

/**
 * A team id in a request. The backend issues team ids as UUIDs, and those are handed on in lower case;
 * the services accept any short id for a team (their tests name teams `team-1`), compared as written.
 */
export const teamIdField = z.string().min(1).max(200).overwrite(canonicalId);
