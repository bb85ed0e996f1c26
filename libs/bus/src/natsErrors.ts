import { NoRespondersError, RequestError, TimeoutError } from '@nats-io/transport-node';
import { AppError } from '@orbital/errors';

/**
 * NATS failures that mean "the service did not answer" become `unavailable`, so gateway-api answers 503
 * promptly instead of hanging or reporting an internal error.
 */
export function translateRequestError(error: unknown, subject: string): AppError {
  if (error instanceof AppError) return error;
  const noResponders =
    error instanceof NoRespondersError ||
    (error instanceof RequestError && (error.isNoResponders() || error.cause instanceof NoRespondersError));
  if (noResponders) {
    return new AppError('unavailable', 'The service for this request is not running', {
      details: { subject, reason: 'no_responders' },
      cause: error,
    });
  }
  if (error instanceof TimeoutError || (error instanceof RequestError && error.cause instanceof TimeoutError)) {
    return new AppError('unavailable', 'The service for this request did not answer in time', {
      details: { subject, reason: 'timeout' },
      cause: error,
    });
  }
  return new AppError('unavailable', 'The message bus is unavailable', {
    details: { subject, reason: 'bus_error' },
    cause: error,
  });
}

/** A request or publish refused at once because the connection to NATS is down (it is reconnecting). */
export function busDisconnected(subject: string): AppError {
  return new AppError('unavailable', 'The message bus is unavailable', {
    details: { subject, reason: 'bus_disconnected' },
  });
}
