import { errorCodeList } from '@orbital/errors';
import { z } from 'zod';

export const errorBody = z.object({
  code: z.enum(errorCodeList),
  message: z.string(),
  details: z.unknown().optional(),
  instructions: z.string().optional(),
});

/** Every NATS reply: `{ok: true, data}` or `{ok: false, error}`. */
export const replyEnvelope = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), data: z.unknown() }),
  z.object({ ok: z.literal(false), error: errorBody }),
]);
export type ReplyEnvelope = z.infer<typeof replyEnvelope>;

/** Header names used on NATS messages. */
export const headerNames = {
  requestId: 'x-request-id',
  identity: 'x-identity',
  satelliteId: 'x-satellite-id',
  teamId: 'x-team-id',
  /** Where a request came from and who made it (requestOrigin), as base64url JSON. */
  origin: 'x-origin',
} as const;
