import { randomBytes } from 'node:crypto';
import type { ClientRecordOptions, DisconnectReason, SessionOwner } from './createSessionStore.ts';
import { detectClientType } from './detectClientType.ts';

/** What a 2026-07-28 request says of its sender: the envelope's `clientInfo`, its user agent, its address. */
export type SessionlessClientInfo = { name?: string; version?: string; userAgent: string; ip: string };

/** One client followed while it keeps sending requests: the counterpart of a 2025 session. */
type Visit = {
  id: string;
  ownerKey: string;
  /** The token's team, which the per-team bound counts; null without authentication. */
  ownerTeam: string | null;
  teamId: string | null;
  firstSeenAt: number;
  lastSeenAt: number;
  toolExecutions: number;
  reportedExecutions: number;
};

/**
 * An authenticated person runs a handful of clients; more distinct `clientInfo`s under one identity are
 * not followed, so one identity varying its `clientInfo` cannot take the places of everyone else's.
 * Everyone without authentication counts as one identity: nothing tells them apart.
 */
export const maxClientsPerIdentity = 20;

/**
 * 2026-07-28 clients, which open no session, as the recent clients list shows them. A client is who
 * sends (the token's user and team; nobody without authentication) and what it calls itself (the
 * `clientInfo` name and version every request's envelope carries, and its user agent): its first
 * request reports it connected (`mcp.client.connected`, transport `stateless`), each `sweep` reports the
 * tool calls of those that made some since their last report, and one without a request for
 * `idleTimeoutMs` is reported gone (`mcp.client.disconnected`, `timeout`); coming back starts a new one.
 *
 * Memory is bounded: at most `maxClients` are followed, `maxClientsPerTeam` per team (so on a global
 * satellite one team's clients cannot take every place) and `maxClientsPerIdentity` per identity. A
 * client beyond a bound is served as any other but not listed until a place frees up, which keeps every
 * followed client's record true instead of ending records of clients still active. Those not followed
 * are counted per sweep interval (`notFollowed`), and each sweep after which some were is logged once.
 */
export function createSessionlessClients(
  options: ClientRecordOptions & { maxClients: number; maxClientsPerTeam: number },
) {
  const now = options.now ?? Date.now;
  const visits = new Map<string, Visit>();
  const perIdentity = new Map<string, number>();
  const perTeam = new Map<string, number>();
  // The distinct clients refused a place since the last sweep, held only up to maxClients keys (the
  // count then reads "at least"), and how many the last completed interval saw.
  const refused = new Set<string>();
  let refusedLastInterval = 0;

  const release = (counts: Map<string, number>, key: string) => {
    const left = (counts.get(key) ?? 1) - 1;
    if (left > 0) counts.set(key, left);
    else counts.delete(key);
  };

  const end = (key: string, visit: Visit, reason: DisconnectReason) => {
    visits.delete(key);
    release(perIdentity, visit.ownerKey);
    if (visit.ownerTeam !== null) release(perTeam, visit.ownerTeam);
    options.events.emit('mcp.client.disconnected', {
      session_id: visit.id,
      team_id: visit.teamId,
      connection_duration_seconds: Math.max(0, (visit.lastSeenAt - visit.firstSeenAt) / 1000),
      tool_execution_count: visit.toolExecutions,
      disconnect_reason: reason,
    });
  };

  const roomFor = (owner: SessionOwner, ownerKey: string): boolean => {
    if (visits.size >= options.maxClients) return false;
    if ((perIdentity.get(ownerKey) ?? 0) >= maxClientsPerIdentity) return false;
    return owner === null || (perTeam.get(owner.teamId) ?? 0) < options.maxClientsPerTeam;
  };

  return {
    size: () => visits.size,
    /**
     * Distinct clients refused a place in the last sweep interval, or in the current one if more
     * (at least: beyond maxClients of them, no more are told apart).
     */
    notFollowed: () => Math.max(refusedLastInterval, refused.size),
    /**
     * A request of a 2026-07-28 client; `execution` when it starts an execute_mcp_tool call (a retry
     * with the client's input continues a call and is not one). Cheap enough for every request.
     */
    seen(owner: SessionOwner, client: SessionlessClientInfo, execution: boolean): void {
      const name = client.name?.slice(0, 200);
      const version = client.version?.slice(0, 100);
      const userAgent = client.userAgent.slice(0, 1000);
      const ownerKey = owner ? `${owner.teamId}\n${owner.userId}` : '';
      const key = `${ownerKey}\n${name ?? ''}\n${version ?? ''}\n${userAgent}`;
      const at = now();
      let visit = visits.get(key);
      if (visit && at - visit.lastSeenAt >= options.idleTimeoutMs) {
        end(key, visit, 'timeout');
        visit = undefined;
      }
      if (!visit) {
        if (!roomFor(owner, ownerKey)) {
          if (refused.size < options.maxClients) refused.add(key);
          return;
        }
        visit = {
          id: `client.${randomBytes(18).toString('base64url')}`,
          ownerKey,
          ownerTeam: owner?.teamId ?? null,
          teamId: owner?.teamId ?? options.teamId,
          firstSeenAt: at,
          lastSeenAt: at,
          toolExecutions: 0,
          reportedExecutions: 0,
        };
        visits.set(key, visit);
        perIdentity.set(ownerKey, (perIdentity.get(ownerKey) ?? 0) + 1);
        if (owner) perTeam.set(owner.teamId, (perTeam.get(owner.teamId) ?? 0) + 1);
        options.events.emit('mcp.client.connected', {
          session_id: visit.id,
          client_type: detectClientType(userAgent),
          user_agent: userAgent,
          client_name: name || null,
          client_version: version || null,
          team_id: visit.teamId,
          transport: 'stateless',
          ip_address: client.ip.slice(0, 100),
        });
      }
      visit.lastSeenAt = at;
      if (execution) visit.toolExecutions++;
    },
    /**
     * Reports the tool-call count of each client that made calls since its last report, and each one
     * idle for the timeout as gone, and logs how many clients were refused a place since the last sweep
     * (once per sweep, so a lasting overflow stays visible without a line per request); the gateway
     * calls it on the session sweep's timer.
     */
    sweep(): number {
      const at = now();
      refusedLastInterval = refused.size;
      refused.clear();
      if (refusedLastInterval > 0) {
        options.logger.warn(
          {
            not_followed: refusedLastInterval,
            followed: visits.size,
            max_clients: options.maxClients,
            max_clients_per_team: options.maxClientsPerTeam,
            max_clients_per_identity: maxClientsPerIdentity,
          },
          'more 2026-07-28 clients than the recent clients list follows; those beyond the bounds are served but not listed',
        );
      }
      let gone = 0;
      for (const [key, visit] of visits) {
        if (at - visit.lastSeenAt >= options.idleTimeoutMs) {
          end(key, visit, 'timeout');
          gone++;
          continue;
        }
        if (visit.toolExecutions === visit.reportedExecutions) continue;
        visit.reportedExecutions = visit.toolExecutions;
        options.events.emit('mcp.client.activity', {
          session_id: visit.id,
          team_id: visit.teamId,
          tool_execution_count: visit.toolExecutions,
          last_activity_at: new Date(visit.lastSeenAt).toISOString(),
        });
      }
      return gone;
    },
    /** Shutdown ends every record, as it ends the 2025 sessions. */
    closeAll(): void {
      for (const [key, visit] of visits) end(key, visit, 'error');
    },
  };
}

export type SessionlessClients = ReturnType<typeof createSessionlessClients>;
