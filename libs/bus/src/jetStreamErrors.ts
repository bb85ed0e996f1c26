import { AppError } from '@orbital/errors';

export function isJetStreamNotFound(error: unknown): boolean {
  const message = String((error as Error)?.message ?? '');
  return message.includes('not found') || (error as { code?: number })?.code === 404;
}

/**
 * A publish JetStream did not store (no stream for the subject, stream full, server gone, timeout)
 * becomes `unavailable`: the producer keeps the message and tries again, nothing is reported stored.
 */
export function translatePublishError(error: unknown, subject: string): AppError {
  if (error instanceof AppError) return error;
  return new AppError('unavailable', 'The event store is unavailable', {
    details: { subject, reason: String((error as Error)?.message ?? error).slice(0, 200) },
    cause: error,
  });
}
