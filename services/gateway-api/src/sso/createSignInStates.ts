import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { AppError } from '@orbital/errors';
import type { Redis } from 'ioredis';
import { SignInFailure } from './signInFailure.ts';

/** What a sign-in remembers between leaving for the provider and coming back. */
export type SignInState = {
  provider: 'repohost' | 'oidc';
  /** The PKCE code verifier (S256): only this browser's flow can redeem the code. */
  codeVerifier: string;
  /** OpenID Connect's nonce, checked in the ID token. */
  nonce?: string;
  /** The console path to land on afterwards. */
  next: string;
};

type StoredState = SignInState & { bindingHash: string; expiresAt: number };

export type StartedState = {
  /** The `state` parameter sent to the provider. */
  state: string;
  /** The secret for the browser's cookie: the callback must present it with the state. */
  binding: string;
};

const random = () => randomBytes(32).toString('base64url');
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * Sign-in states on Redis, so a callback may reach any gateway replica. A state is single-use (taken
 * with GETDEL: a replayed callback finds nothing), short-lived (refused after `ttlMs`, and gone from
 * Redis soon after), and bound to the browser that started it: the callback must bring the cookie whose
 * secret's hash the state holds, so a callback URL carried to another browser (login CSRF) is refused.
 * Keys are the SHA-256 of the state, so Redis never holds a usable state.
 */
export function createSignInStates(options: { redis: Redis; keyPrefix: string; ttlMs: number; now: () => number }) {
  const { redis, ttlMs, now } = options;
  const keyOf = (state: string) => `${options.keyPrefix}:sso:state:${sha256(state)}`;

  async function redisCall<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (cause) {
      throw new AppError('unavailable', 'Sign-in states cannot be stored right now', { cause });
    }
  }

  return {
    ttlMs,
    async start(state: SignInState): Promise<StartedState> {
      const started = { state: random(), binding: random() };
      const stored: StoredState = { ...state, bindingHash: sha256(started.binding), expiresAt: now() + ttlMs };
      // Redis keeps it a minute longer than it is valid: an expired state is answered as expired, not unknown.
      const seconds = Math.ceil(ttlMs / 1000) + 60;
      await redisCall(() => redis.set(keyOf(started.state), JSON.stringify(stored), 'EX', seconds));
      return started;
    },

    /** The state a callback names, taken (never to be taken again) and checked against the browser's cookie. */
    async take(state: string, binding: string | undefined): Promise<SignInState> {
      const raw = await redisCall(() => redis.getdel(keyOf(state)));
      if (raw === null) throw new SignInFailure('invalid_state');
      const stored = JSON.parse(raw) as StoredState;
      if (stored.expiresAt <= now()) throw new SignInFailure('state_expired');
      const given = Buffer.from(sha256(binding ?? ''));
      if (!binding || !timingSafeEqual(given, Buffer.from(stored.bindingHash))) {
        throw new SignInFailure('state_mismatch');
      }
      const { bindingHash: _hash, expiresAt: _expires, ...signIn } = stored;
      return signIn;
    },
  };
}

export type SignInStates = ReturnType<typeof createSignInStates>;
