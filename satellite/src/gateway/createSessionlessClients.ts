import { randomBytes } from 'node:crypto';
import type { ClientRecordOptions, DisconnectReason, SessionOwner } from './createSessionStore.ts';
import { detectClientType } from './detectClientType.ts';

/** What a 2026-07-28 request says of its sender: the envelope's `clientInfo`, its user agent, its address. */
export type SessionlessClientInfo = { name?: string; version?: string; userAgent: string; ip: string };

/** One client followed while it keeps sending requests: the counterpart of a 2025 session. */
type Visit = {
  id: string;
  ownerKey: string;
  teamId: string | null;
  firstSeenAt: number;
  lastSeenAt: number;
  toolExecutions: number;
  reportedExecutions: number;
};

/**
 * An authenticated person runs a handful of clients; more distinct `clientInfo`s under one identity are
 * not followed, so one identity varying its `clientInfo` cannot take the places of everyone else's.
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
 * Memory is bounded: at most `maxClients` are followed (and `maxClientsPerIdentity` per authenticated
 * identity). A client beyond the bound is served as any other but not listed until a place frees up,
 * which keeps every followed client's record true instead of ending records of clients still active.
 */
export function createSessionlessClients(options: ClientRecordOptions & { maxClients: number }) {
  const now = options.now ?? Date.now;
  const visits = new Map<string, Visit>();
  const perIdentity = new Map<string, number>();
  let unfollowed = 0;
  let warned = false;

  const end = (key: string, visit: Visit, reason: DisconnectReason) => {
    visits.delete(key);
    const left = (perIdentity.get(visit.ownerKey) ?? 1) - 1;
    if (left > 0) perIdentity.set(visit.ownerKey, left);
    else perIdentity.delete(visit.ownerKey);
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
    return owner === null || (perIdentity.get(ownerKey) ?? 0) < maxClientsPerIdentity;
  };

  return {
    size: () => visits.size,
    /** Clients seen while every place was taken, since the start. */
    unfollowed: () => unfollowed,
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
          unfollowed++;
          if (!warned) {
            warned = true;
            options.logger.warn(
              { followed: visits.size, max_clients: options.maxClients },
              'too many 2026-07-28 clients to list them all; those beyond the limit are served but not listed',
            );
          }
          return;
        }
        visit = {
          id: `client.${randomBytes(18).toString('base64url')}`,
          ownerKey,
          teamId: owner?.teamId ?? options.teamId,
          firstSeenAt: at,
          lastSeenAt: at,
          toolExecutions: 0,
          reportedExecutions: 0,
        };
        visits.set(key, visit);
        perIdentity.set(ownerKey, (perIdentity.get(ownerKey) ?? 0) + 1);
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
     * idle for the timeout as gone; the gateway calls it on the session sweep's timer.
     */
    sweep(): number {
      const at = now();
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
