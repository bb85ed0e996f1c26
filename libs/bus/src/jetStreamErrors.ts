import { AppError } from '@orbital/errors';

/** JetStream's error code for a publish whose expected last sequence (of its subject) did not hold. */
const wrongLastSequence = 10071;

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
  // A publish that expected its subject empty (`firstOnSubject`) found a message there: nothing is
  // wrong with the store, so trying again would never help.
  if ((error as { code?: number })?.code === wrongLastSequence) {
    return new AppError('conflict', 'The subject already holds a message', { details: { subject }, cause: error });
  }
  return new AppError('unavailable', 'The event store is unavailable', {
    details: { subject, reason: String((error as Error)?.message ?? error).slice(0, 200) },
    cause: error,
  });
}
