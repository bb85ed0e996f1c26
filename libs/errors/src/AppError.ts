import { type ErrorCode, errorCodes } from './errorCodes.ts';

export type AppErrorOptions = {
  details?: unknown;
  /** What the caller should do next; used by satellite and registration errors. */
  instructions?: string;
  cause?: unknown;
};

/** The body an error travels as, on NATS and inside the HTTP envelope. Never holds a stack or a cause. */
export type ErrorBody = {
  code: ErrorCode;
  message: string;
  details?: unknown;
  instructions?: string;
};

/**
 * The one error type of the platform. `message` is safe to show to a client; anything that is not
 * (a driver error, a path, a secret) belongs in `cause`, which is logged but never sent.
 */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: unknown;
  readonly instructions: string | undefined;

  constructor(code: ErrorCode, message?: string, options: AppErrorOptions = {}) {
    super(message ?? errorCodes[code].message, { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.details = options.details;
    this.instructions = options.instructions;
  }

  get status(): number {
    return errorCodes[this.code].status;
  }

  toBody(): ErrorBody {
    const body: ErrorBody = { code: this.code, message: this.message };
    if (this.details !== undefined) body.details = this.details;
    if (this.instructions !== undefined) body.instructions = this.instructions;
    return body;
  }

  static fromBody(body: ErrorBody): AppError {
    return new AppError(body.code, body.message, {
      details: body.details,
      ...(body.instructions === undefined ? {} : { instructions: body.instructions }),
    });
  }
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}

/** Any thrown value as an AppError; unknown failures become `internal` with the original kept as cause. */
export function toAppError(error: unknown): AppError {
  if (isAppError(error)) return error;
  return new AppError('internal', undefined, { cause: error });
}
