import { AppError } from '@orbital/errors';

export type RefusalReason =
  | 'missing'
  | 'malformed'
  | 'invalid'
  | 'expired'
  | 'already_used'
  | 'revoked'
  | 'wrong_scope';

const generate =
  'Ask an administrator for a new registration token: a global admin generates global tokens ' +
  '(POST /api/satellites/registration-tokens), a team admin team tokens (POST /api/teams/{teamId}/satellites/registration-tokens).';

const refusals: Record<
  RefusalReason,
  { code: 'unauthenticated' | 'forbidden'; message: string; instructions: string }
> = {
  missing: {
    code: 'unauthenticated',
    message: 'Registration needs a registration token',
    instructions: `Send the header "Authorization: Bearer service_satellite_<registration token>". ${generate}`,
  },
  malformed: {
    code: 'unauthenticated',
    message: 'The Authorization header is not a registration token',
    instructions: `The header must be "Authorization: Bearer service_satellite_<registration token>", with the prefix. ${generate}`,
  },
  invalid: {
    code: 'unauthenticated',
    message: 'The registration token is not valid',
    instructions: `Check that the whole token was copied, without spaces or line breaks. If it was, it was not issued by this backend: ${generate}`,
  },
  expired: {
    code: 'unauthenticated',
    message: 'The registration token has expired',
    instructions: `Tokens are valid for the lifetime chosen when they are generated (60 minutes unless set otherwise). ${generate}`,
  },
  already_used: {
    code: 'unauthenticated',
    message: 'The registration token has already been used',
    instructions: `Each token registers one satellite once. If this satellite registered with it, use the API key it received then; otherwise: ${generate}`,
  },
  revoked: {
    code: 'unauthenticated',
    message: 'The registration token has been revoked',
    instructions: generate,
  },
  wrong_scope: {
    code: 'forbidden',
    message: "The registration token's scope does not match this registration",
    instructions:
      'A global token registers a global satellite; a team token registers a satellite of that team only. Remove satellite_type and team_id from the body to take them from the token, or use a token of the right scope.',
  },
};

/** A refused registration: a structured error with what to do next. */
export function registrationRefusal(reason: RefusalReason): AppError {
  const refusal = refusals[reason];
  return new AppError(refusal.code, refusal.message, { instructions: refusal.instructions, details: { reason } });
}
