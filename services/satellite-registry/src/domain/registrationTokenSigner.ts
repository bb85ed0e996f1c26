import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';

const issuer = 'orbital-registry';
const audience = 'satellite-registration';

export type RegistrationClaims = { tokenId: string; scope: 'global' | 'team'; teamId: string | null };

/** Why a token was refused; each maps to a structured error with instructions (registrationRefusal.ts). */
export type TokenProblem = 'invalid' | 'expired';

export type RegistrationTokenSigner = {
  sign(claims: RegistrationClaims, expiresAt: Date): Promise<string>;
  verify(token: string): Promise<{ ok: true; claims: RegistrationClaims } | { ok: false; problem: TokenProblem }>;
};

/**
 * Registration tokens are HS256 JWTs made and checked by `jose` (never by hand). The token carries its
 * row id as `jti`; the row decides single use. Issuer and audience pin the token to this purpose, so a
 * JWT signed for anything else with the same secret is refused.
 */
export function createRegistrationTokenSigner(options: { secret: string; now: () => Date }): RegistrationTokenSigner {
  const key = new TextEncoder().encode(options.secret);
  return {
    sign(claims, expiresAt) {
      return new SignJWT({ scope: claims.scope, ...(claims.teamId ? { team_id: claims.teamId } : {}) })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setJti(claims.tokenId)
        .setIssuer(issuer)
        .setAudience(audience)
        .setIssuedAt(Math.floor(options.now().getTime() / 1000))
        .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
        .sign(key);
    },
    async verify(token) {
      try {
        const { payload } = await jwtVerify(token, key, {
          algorithms: ['HS256'],
          issuer,
          audience,
          currentDate: options.now(),
          requiredClaims: ['jti', 'exp'],
        });
        const scope = payload.scope;
        const teamId = typeof payload.team_id === 'string' ? payload.team_id : null;
        if (!payload.jti || (scope !== 'global' && scope !== 'team') || (scope === 'team') !== (teamId !== null)) {
          return { ok: false, problem: 'invalid' };
        }
        return { ok: true, claims: { tokenId: payload.jti, scope, teamId } };
      } catch (error) {
        if (error instanceof joseErrors.JWTExpired) return { ok: false, problem: 'expired' };
        return { ok: false, problem: 'invalid' };
      }
    },
  };
}
