import { registerSatelliteReply } from '@orbital/contracts';
import { AppError } from '@orbital/errors';
import type { Logger } from '@orbital/logger';
import { type BackendClient, describeFailure } from './createBackendClient.ts';
import type { CredentialsStore, SatelliteCredentials } from './createCredentialsStore.ts';
import { delay, type Scheduler } from './scheduler.ts';

export type RegistrationDetails = {
  name: string;
  capabilities: string[];
  system_info: Record<string, unknown>;
  satellite_url?: string;
};

export type SatelliteIdentity = {
  /**
   * The credentials to use: those on disk, or new ones from registering with the token. Transient
   * failures (backend down, 5xx, timeout, 429) are retried with backoff until `signal` aborts; a
   * refused token throws with what the operator must do.
   */
  ensure(signal?: AbortSignal): Promise<SatelliteCredentials>;
  current(): SatelliteCredentials | null;
  /**
   * A request made with `apiKey` got 401. Re-registers when a token is available and was not spent
   * in this process (tokens are single use), then resolves true (retry with the new key); otherwise
   * logs what the operator must do, once, and resolves false. Concurrent callers share one attempt.
   */
  handleUnauthorized(apiKey: string): Promise<boolean>;
};

const retryBaseMs = 1000;
const retryMaxMs = 60000;

const operatorSteps =
  'generate a new registration token (POST /api/satellites/registration-tokens, or the team route for a team satellite), set SATELLITE_REGISTRATION_TOKEN to it (or write it to the file SATELLITE_REGISTRATION_TOKEN_FILE names) and restart the satellite';

/** Registration and the credentials life cycle: credentials survive transient failures; only a 401 re-registers. */
export function createSatelliteIdentity(options: {
  client: BackendClient;
  store: CredentialsStore;
  registrationToken: string | undefined;
  details: () => RegistrationDetails;
  scheduler: Scheduler;
  logger: Logger;
}): SatelliteIdentity {
  const { client, store, scheduler, logger } = options;
  let credentials: SatelliteCredentials | null = null;
  let tokenSpent = false;
  let pending: Promise<boolean> | undefined;
  let toldOperatorFor: string | undefined;

  /** One registration attempt; `transient` failures may be retried, the others may not. */
  const attempt = async (
    signal?: AbortSignal,
  ): Promise<{ ok: true; credentials: SatelliteCredentials } | { ok: false; transient: boolean; message: string }> => {
    const token = options.registrationToken;
    if (!token) return { ok: false, transient: false, message: 'no registration token' };
    const result = await client.request({
      method: 'POST',
      path: '/api/satellites/register',
      authorization: `Bearer service_satellite_${token}`,
      body: options.details(),
      ...(signal ? { signal } : {}),
    });
    if (result.kind === 'ok') {
      const reply = registerSatelliteReply.safeParse(result.data);
      if (!reply.success) return { ok: false, transient: true, message: 'registration reply not understood' };
      tokenSpent = true;
      return {
        ok: true,
        credentials: {
          satellite_id: reply.data.satellite_id,
          api_key: reply.data.api_key,
          backend_url: client.baseUrl,
          satellite_type: reply.data.satellite_type,
          team_id: reply.data.team_id,
          registered_at: new Date(scheduler.now()).toISOString(),
        },
      };
    }
    const transient = result.kind !== 'http' || result.status >= 500 || result.status === 429 || result.status === 408;
    if (!transient) tokenSpent = true;
    const message =
      result.kind === 'http' && result.instructions
        ? `${describeFailure(result)}. ${result.instructions}`
        : describeFailure(result);
    return { ok: false, transient, message };
  };

  /** The key is in memory already; losing the file would lose it at the next start, so say so loudly. */
  const persist = async (next: SatelliteCredentials) => {
    credentials = next;
    try {
      await store.save(next);
    } catch (error) {
      logger.error(
        { err: error, path: store.path, satellite_id: next.satellite_id },
        'registered, but the credentials could not be saved: they are kept in memory only, so fix SATELLITE_STATE_DIR before this satellite restarts',
      );
    }
  };

  return {
    current: () => credentials,

    async ensure(signal) {
      if (credentials) return credentials;
      const stored = await store.load();
      if (stored) {
        if (stored.backend_url !== client.baseUrl) {
          logger.warn(
            { stored_backend: stored.backend_url, backend: client.baseUrl },
            'credentials were issued by another BACKEND_URL; using them anyway',
          );
        }
        if (options.registrationToken) {
          logger.info('already registered: SATELLITE_REGISTRATION_TOKEN is kept for re-registration only');
        }
        credentials = stored;
        return stored;
      }
      if (!options.registrationToken) {
        throw new AppError(
          'unauthenticated',
          `not registered (no credentials in ${store.path}) and no registration token (SATELLITE_REGISTRATION_TOKEN or SATELLITE_REGISTRATION_TOKEN_FILE): ${operatorSteps}`,
        );
      }
      for (let failures = 0; ; failures++) {
        const outcome = await attempt(signal);
        if (outcome.ok) {
          await persist(outcome.credentials);
          logger.info(
            { satellite_id: outcome.credentials.satellite_id, satellite_type: outcome.credentials.satellite_type },
            'registered with the backend',
          );
          return outcome.credentials;
        }
        if (!outcome.transient) {
          throw new AppError('unauthenticated', `registration refused: ${outcome.message}`);
        }
        if (signal?.aborted) throw new AppError('unavailable', 'registration abandoned: shutting down');
        const wait = Math.min(retryMaxMs, retryBaseMs * 2 ** failures);
        logger.warn({ reason: outcome.message, retry_in_ms: wait }, 'registration failed; retrying');
        await delay(scheduler, wait, signal);
        if (signal?.aborted) throw new AppError('unavailable', 'registration abandoned: shutting down');
      }
    },

    handleUnauthorized(apiKey) {
      // Someone already replaced the key the caller used: retry with the new one.
      if (credentials && credentials.api_key !== apiKey) return Promise.resolve(true);
      if (pending) return pending;
      pending = (async () => {
        try {
          if (!options.registrationToken || tokenSpent) {
            if (toldOperatorFor !== apiKey) {
              toldOperatorFor = apiKey;
              logger.error(
                { satellite_id: credentials?.satellite_id, credentials_file: store.path },
                `the backend refuses this satellite's API key (revoked, or the satellite was deleted). The credentials are kept. To re-register: ${operatorSteps}`,
              );
            }
            return false;
          }
          logger.warn(
            { satellite_id: credentials?.satellite_id },
            'API key refused; re-registering with SATELLITE_REGISTRATION_TOKEN',
          );
          const outcome = await attempt();
          if (outcome.ok) {
            await persist(outcome.credentials);
            logger.info({ satellite_id: outcome.credentials.satellite_id }, 're-registered with the backend');
            return true;
          }
          if (outcome.transient) {
            // The token was not consumed: a later 401 may try again.
            logger.warn({ reason: outcome.message }, 're-registration failed; will try again on the next refusal');
            return false;
          }
          toldOperatorFor = apiKey;
          logger.error(
            { reason: outcome.message, credentials_file: store.path },
            `re-registration refused. The old credentials are kept. To recover: ${operatorSteps}`,
          );
          return false;
        } finally {
          pending = undefined;
        }
      })();
      return pending;
    },
  };
}
