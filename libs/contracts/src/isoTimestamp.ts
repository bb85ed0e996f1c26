import { z } from 'zod';

/**
 * A moment as every contract carries it: ISO 8601 with its offset (`2026-01-31T12:00:00.000Z`, as
 * `Date.prototype.toISOString` writes it, or `+02:00`). A time without an offset names no moment.
 */
export const isoTimestamp = z.iso.datetime({ offset: true });

/** When a record was created and when it last changed: the pair every editable record carries. */
export const recordTimestamps = { created_at: isoTimestamp, updated_at: isoTimestamp };
