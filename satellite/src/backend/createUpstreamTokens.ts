import type { SatelliteTokenReply } from '@orbital/contracts';
import type { UpstreamTokens } from '../runtime/upstreamTokens.ts';
import type { SatelliteApi } from './createSatelliteApi.ts';

/** A token is used until this long before its end, then asked for again (the backend refreshes it). */
const endMarginMs = 30_000;
/** A token whose end the authorization server did not state is asked for again after this long. */
const unstatedLifetimeMs = 5 * 60_000;

/**
 * Tokens for calls of remote servers behind OAuth, from the backend (`POST /api/satellites/:id/oauth/token`),
 * kept in memory only (never written to disk or a log), per installation and person, until shortly
 * before they end. A refused token is dropped and a fresh one asked for.
 */
export function createUpstreamTokens(options: { api: SatelliteApi; now?: () => number }): UpstreamTokens {
  const now = options.now ?? Date.now;
  const cache = new Map<string, { token: string; until: number }>();
  return {
    async token({ installationId, userId, purpose, refused }) {
      const key = `${installationId}|${purpose === 'discovery' ? '*' : (userId ?? '-')}`;
      const cached = cache.get(key);
      if (refused) cache.delete(key);
      else if (cached && cached.until > now()) return { kind: 'ok', token: cached.token };
      const answer = await options.api.call<SatelliteTokenReply>('POST', '/oauth/token', {
        installation_id: installationId,
        user_id: userId,
        purpose,
        refused,
      });
      if (answer.kind !== 'ok') {
        const why = answer.kind === 'http' ? answer.message : 'the backend cannot be reached';
        return { kind: 'unavailable', message: `No token for this MCP server: ${why}` };
      }
      const reply = answer.data;
      if (reply.status !== 'ok') return { kind: 'unavailable', message: reply.message };
      const until = reply.expires_at === null ? now() + unstatedLifetimeMs : reply.expires_at * 1000 - endMarginMs;
      cache.set(key, { token: reply.access_token, until });
      return { kind: 'ok', token: reply.access_token };
    },
    issued(installationId) {
      const prefix = `${installationId}|`;
      return [...cache].filter(([key]) => key.startsWith(prefix)).map(([, entry]) => entry.token);
    },
  };
}
