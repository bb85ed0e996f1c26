/**
 * The closed registry of error codes. Every error that crosses a boundary (NATS reply, HTTP response)
 * carries one of these; gateway-api maps each to exactly one HTTP status.
 */
export const errorCodes = {
  validation_failed: { status: 400, message: 'The request is not valid' },
  unauthenticated: { status: 401, message: 'Authentication is required' },
  forbidden: { status: 403, message: 'You are not allowed to do this' },
  // The platform's switch global.enable_login is off: no new session or token is handed out.
  login_disabled: { status: 403, message: 'Login is turned off on this platform' },
  // global.enable_email_registration is off: nobody may register by e-mail.
  registration_disabled: { status: 403, message: 'Registration by e-mail is turned off on this platform' },
  // A global admin disabled the account: it cannot sign in.
  account_disabled: { status: 403, message: 'This account is disabled' },
  // The account's address was never confirmed by the mailed link.
  email_unverified: { status: 403, message: 'Confirm your e-mail address first' },
  not_found: { status: 404, message: 'Not found' },
  // The path exists, with other methods (named in the answer's Allow header).
  method_not_allowed: { status: 405, message: 'This method is not allowed on this path' },
  conflict: { status: 409, message: 'The request conflicts with the current state' },
  // global.send_mail is off, and what was asked needs a mail (a link to confirm, reset or join).
  mail_disabled: { status: 409, message: 'This platform does not send mail' },
  // Requests over the HTTP limits, refused by gateway-api before any route runs.
  payload_too_large: { status: 413, message: 'The request body is too large' },
  uri_too_long: { status: 414, message: 'The request URL is too long' },
  headers_too_large: { status: 431, message: 'The request headers are too large' },
  rate_limited: { status: 429, message: 'Too many requests' },
  internal: { status: 500, message: 'Internal error' },
  unavailable: { status: 503, message: 'A service needed for this request is unavailable' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof errorCodes;

export const errorCodeList = Object.keys(errorCodes) as [ErrorCode, ...ErrorCode[]];

export function httpStatusFor(code: ErrorCode): number {
  return errorCodes[code].status;
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(errorCodes, value);
}
