import type { OAuthClientInformationFull } from '@modelcontextprotocol/client';
import type { SecretBox } from '@orbital/crypto';
import type { LivePool } from '@orbital/db';
import type { GuardedFetch } from '@orbital/egress';
import type { Logger } from '@orbital/logger';
import * as o from '../db/oauthQueries.ts';

export type RevocationRelay = { start(): void; flush(): Promise<void>; stop(): Promise<void> };

/** Attempts before a revocation is given up (logged): about a day with the doubling delays below. */
const maxAttempts = 12;

/**
 * Sends the revocations (RFC 7009) that removals queued, after their commit, and retries those whose
 * authorization server was away. Every token is revoked on its own (refresh token first: revoking it
 * usually ends the access tokens it issued); the client authenticates as it registered.
 */
export function createRevocationRelay(deps: {
  pool: LivePool;
  box: SecretBox;
  logger: Logger;
  fetch: GuardedFetch;
  intervalMs: number;
}): RevocationRelay {
  const { pool, box, logger } = deps;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;

  async function revoke(endpoint: string, token: string, client: OAuthClientInformationFull): Promise<void> {
    const form = new URLSearchParams({ token });
    const headers: Record<string, string> = {};
    if (client.client_secret && client.token_endpoint_auth_method !== 'client_secret_post') {
      const pair = `${encodeURIComponent(client.client_id)}:${encodeURIComponent(client.client_secret)}`;
      headers.authorization = `Basic ${Buffer.from(pair).toString('base64')}`;
    } else {
      form.set('client_id', client.client_id);
      if (client.client_secret) form.set('client_secret', client.client_secret);
    }
    const response = await deps.fetch(endpoint, { method: 'POST', headers, body: form });
    // 200 whether or not the token was still valid (RFC 7009 section 2.2); 503 asks to come back later.
    if (response.status === 200) return;
    const retry = response.status === 503 || response.status >= 500 || response.status === 429;
    throw Object.assign(new Error(`the revocation endpoint answered ${response.status}`), { retry });
  }

  async function runOnce(): Promise<void> {
    if (!pool.isReady()) return;
    const due = await o.claimDueRevocations(pool.get(), Math.max(deps.intervalMs * 4, 30_000));
    for (const row of due) {
      const request = JSON.parse(box.decrypt(row.sealed_request, `oauth-revocation:${row.id}`)) as {
        tokens: string[];
        client: OAuthClientInformationFull;
      };
      try {
        for (const token of request.tokens) await revoke(row.revocation_endpoint, token, request.client);
        await o.finishRevocation(pool.get(), row.id);
      } catch (error) {
        const message = (error as Error).message;
        const retry = (error as { retry?: boolean }).retry !== false && row.attempts + 1 < maxAttempts;
        if (!retry) {
          logger.warn(
            { event: 'oauth.remote_revocation_failed', endpoint: row.revocation_endpoint, err: message },
            'a remote token could not be revoked; given up',
          );
          await o.finishRevocation(pool.get(), row.id);
        } else {
          await o.retryRevocation(pool.get(), row.id, message, deps.intervalMs * 2 ** row.attempts);
        }
      }
    }
  }

  function flush(): Promise<void> {
    running ??= runOnce()
      .catch((error: unknown) => logger.warn({ err: (error as Error).message }, 'revocation relay pass failed'))
      .finally(() => {
        running = null;
      });
    return running;
  }

  return {
    start() {
      timer ??= setInterval(() => void flush(), deps.intervalMs);
      timer.unref();
    },
    flush,
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      await running;
    },
  };
}
