import { AppError, toAppError } from '@orbital/errors';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { drainRejectedBody } from './drainRejectedBody.ts';

export type ErrorEnvelope = {
  success: false;
  error: { code: string; message: string; details?: unknown; instructions?: string };
};

/** Fastify's own errors (bad JSON, body too large, wrong content type) as the platform's codes. */
function fromFastifyError(error: FastifyError): AppError | null {
  if (error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') {
    return new AppError('validation_failed', 'The request body is not valid JSON');
  }
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return new AppError('payload_too_large');
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return new AppError('validation_failed', 'Send the request body as application/json');
  }
  // A path the console's file server will not look up (too long to check its spelling, say): nothing there.
  if (error.code === 'FST_STATIC_FORBIDDEN_PATH') return new AppError('not_found', 'Not found');
  if (error.statusCode === 400 && error.validation) {
    return new AppError('validation_failed', error.message);
  }
  return null;
}

/**
 * The one error handler: writes `{success: false, error: {code, message, details?}}` with the status of the
 * code, logs the cause of server-side failures, and never sends a stack trace or an internal message to the
 * client.
 */
export function errorHandler(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) {
  const appError = ('code' in error && fromFastifyError(error as FastifyError)) || toAppError(error);
  if (appError.code === 'payload_too_large') drainRejectedBody(request, reply);
  const retryAfter = (appError.details as { retry_after_seconds?: unknown } | undefined)?.retry_after_seconds;
  if ((appError.code === 'unavailable' || appError.code === 'rate_limited') && typeof retryAfter === 'number') {
    reply.header('retry-after', String(retryAfter));
  }
  if (appError.code === 'unavailable') {
    // An outage is logged, but as what it is: one line per request, not an error with a stack each.
    request.log.warn({ code: appError.code, details: appError.details }, 'request failed: a dependency is unavailable');
  } else if (appError.status >= 500) {
    request.log.error({ err: appError.cause ?? appError, code: appError.code }, 'request failed');
  } else {
    request.log.info({ code: appError.code }, 'request refused');
  }
  const body: ErrorEnvelope = { success: false, error: appError.toBody() };
  void reply.status(appError.status).send(body);
}

/**
 * A path that exists with other methods: 405 with `Allow` naming them (RFC 9110), in the error envelope,
 * rather than a 404 that says the path does not exist.
 */
export function methodNotAllowedHandler(request: FastifyRequest, reply: FastifyReply, allowed: readonly string[]) {
  const body: ErrorEnvelope = {
    success: false,
    error: {
      code: 'method_not_allowed',
      message: `${request.method} is not allowed on ${request.url.split('?')[0]}; it takes ${allowed.join(', ')}`,
    },
  };
  void reply.status(405).header('allow', allowed.join(', ')).send(body);
}

export function notFoundHandler(request: FastifyRequest, reply: FastifyReply) {
  const body: ErrorEnvelope = {
    success: false,
    error: { code: 'not_found', message: `No route for ${request.method} ${request.url.split('?')[0]}` },
  };
  void reply.status(404).send(body);
}
