import { z } from 'zod';

/** slonik parses timestamptz to epoch milliseconds; the API speaks ISO 8601. */
export function timestampToIso(ms: number): string {
  return new Date(ms).toISOString();
}

/** A timestamptz column in a `sql.type(...)` row schema, as the ISO 8601 string responses carry. */
export const isoTimestampColumn = z.number().transform(timestampToIso);
