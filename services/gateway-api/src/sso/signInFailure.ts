import type { ErrorCode } from '@orbital/errors';

/**
 * Why a sign-in with an outside account did not succeed. The reason is shown on the error page (and
 * logged); the platform's error code gives the HTTP status. Messages say what happened and what to do,
 * in words a person at the login page can act on, and never hold a secret.
 */
export const signInFailureReasons = {
  not_configured: { code: 'not_found', message: 'This way of signing in is not enabled.' },
  login_disabled: { code: 'login_disabled', message: 'Signing in is turned off on this platform.' },
  invalid_request: {
    code: 'validation_failed',
    message: 'The answer from the provider is incomplete. Start signing in again.',
  },
  invalid_state: {
    code: 'validation_failed',
    message: 'This sign-in is unknown or was already used. Start signing in again.',
  },
  state_expired: { code: 'validation_failed', message: 'This sign-in took too long. Start signing in again.' },
  state_mismatch: {
    code: 'validation_failed',
    message: 'This sign-in was started in another browser. Start signing in again from this one.',
  },
  access_denied: { code: 'unauthenticated', message: 'The provider did not let you in, or you cancelled.' },
  code_rejected: {
    code: 'unauthenticated',
    message: 'The provider refused the sign-in code (it may have been used already). Start signing in again.',
  },
  token_invalid: { code: 'unauthenticated', message: 'The identity the provider sent could not be verified.' },
  provider_unavailable: {
    code: 'unavailable',
    message: 'The sign-in provider cannot be reached or did not answer properly. Try again in a moment.',
  },
  misconfigured: {
    code: 'unavailable',
    message: 'This way of signing in is not configured correctly. An administrator has to fix its settings.',
  },
  unavailable: { code: 'unavailable', message: 'The platform cannot complete sign-ins right now. Try again soon.' },
  email_missing: { code: 'forbidden', message: 'The provider did not tell us your e-mail address.' },
  email_not_verified: {
    code: 'forbidden',
    message: 'Your e-mail address is not verified at the provider. Verify it there, then sign in again.',
  },
  email_domain_not_allowed: {
    code: 'forbidden',
    message: 'Addresses of your e-mail domain may not sign in here.',
  },
  account_disabled: { code: 'account_disabled', message: 'Your account is disabled. Ask an administrator.' },
} as const satisfies Record<string, { code: ErrorCode; message: string }>;

export type SignInFailureReason = keyof typeof signInFailureReasons;

export class SignInFailure extends Error {
  readonly reason: SignInFailureReason;
  readonly code: ErrorCode;

  constructor(reason: SignInFailureReason, options: { message?: string; cause?: unknown } = {}) {
    super(options.message ?? signInFailureReasons[reason].message, { cause: options.cause });
    this.name = 'SignInFailure';
    this.reason = reason;
    this.code = signInFailureReasons[reason].code;
  }
}
