import { describe, expect, it } from 'vitest';
import { AppError, toAppError } from './AppError.ts';
import { errorCodeList, httpStatusFor } from './errorCodes.ts';

describe('AppError', () => {
  it('maps every code to one HTTP status', () => {
    expect(Object.fromEntries(errorCodeList.map((code) => [code, httpStatusFor(code)]))).toEqual({
      validation_failed: 400,
      unauthenticated: 401,
      forbidden: 403,
      login_disabled: 403,
      registration_disabled: 403,
      account_disabled: 403,
      email_unverified: 403,
      not_found: 404,
      method_not_allowed: 405,
      conflict: 409,
      mail_disabled: 409,
      payload_too_large: 413,
      uri_too_long: 414,
      headers_too_large: 431,
      rate_limited: 429,
      internal: 500,
      unavailable: 503,
    });
  });

  it('travels as a body without its cause and comes back with the same code, message and details', () => {
    const original = new AppError('conflict', 'already set up', {
      details: { key: 'x' },
      instructions: 'do y',
      cause: new Error('secret path /etc/x'),
    });
    const body = original.toBody();
    expect(JSON.stringify(body)).not.toContain('/etc/x');
    const back = AppError.fromBody(body);
    expect(back).toMatchObject({
      code: 'conflict',
      message: 'already set up',
      details: { key: 'x' },
      instructions: 'do y',
    });
    expect(back.status).toBe(409);
  });

  it('turns unknown throws into internal with a generic message, keeping the cause for logs', () => {
    const cause = new Error('connection string postgres://u:p@h/db');
    const error = toAppError(cause);
    expect(error.code).toBe('internal');
    expect(error.message).not.toContain('postgres://');
    expect(error.cause).toBe(cause);
  });
});
