import type { Server, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import type { Logger } from '@orbital/logger';
import type { EventSink } from '../events/eventSink.ts';
import { type CallRegistry, createCallRegistry } from './createCallRegistry.ts';
import { detectClientType } from './detectClientType.ts';

/**
 * The identity a session was opened with (SATELLITE_AUTH_MODE=oauth): the token's user and team, not
 * the token itself, so a refreshed token of the same user and team keeps the session. Null without
 * authentication.
 */
export type SessionOwner = { userId: string; teamId: string } | null;

export function sameOwner(a: SessionOwner, b: SessionOwner): boolean {
  return a === null || b === null ? a === b : a.userId === b.userId && a.teamId === b.teamId;
}

export type Session = {
  id: string;
  owner: SessionOwner;
  transport: WebStandardStreamableHTTPServerTransport;
  server: Server;
  connectedAt: number;
  lastSeenAt: number;
  toolExecutions: number;
  /** The count last sent in `mcp.client.activity`, so a session without new calls sends nothing. */
  reportedExecutions: number;
  /**
   * Tool calls answered without the session's MCP server (plainToolCall.ts), by request id: the
   * session's end and the client's `notifications/cancelled` stop them as they stop the server's.
   */
  plainCalls: CallRegistry;
};

export type DisconnectReason = 'client_close' | 'timeout' | 'error';

/**
 * What both records of clients take, a 2025 client's session and a 2026-07-28 client's record
 * (createSessionlessClients.ts): when one counts as gone, where its events go, the satellite's own team
 * (a team satellite's, named in the events of clients that name none) and the clock.
 */
export type ClientRecordOptions = {
  idleTimeoutMs: number;
  events: EventSink;
  logger: Logger;
  teamId: string | null;
  now?: () => number;
};

/**
 * Sessions of legacy clients (protocol revisions 2025-03-26 to 2025-11-25; 2026-07-28 has none):
 * created on initialize, refreshed by every message, removed after `idleTimeoutMs` without one or on
 * DELETE. Removing a session closes its transport and its MCP server, so nothing of it outlives it, and
 * emits `mcp.client.disconnected` once.
 */
export function createSessionStore(options: ClientRecordOptions) {
  const now = options.now ?? Date.now;
  const sessions = new Map<string, Session>();

  const remove = async (id: string, reason: DisconnectReason) => {
    const session = sessions.get(id);
    if (!session) return;
    sessions.delete(id);
    session.plainCalls.stopAll(new Error('the session ended'));
    options.events.emit('mcp.client.disconnected', {
      session_id: id,
      // The team the session served, as its connection said (not null for a global satellite's).
      team_id: session.owner?.teamId ?? options.teamId,
      connection_duration_seconds: Math.max(0, (now() - session.connectedAt) / 1000),
      tool_execution_count: session.toolExecutions,
      disconnect_reason: reason,
    });
    // Closing the transport calls its onclose, which calls remove again: the entry is gone by then.
    await session.transport.close().catch(() => {});
    await session.server.close().catch(() => {});
  };

  return {
    size: () => sessions.size,
    add(
      session: Omit<Session, 'connectedAt' | 'lastSeenAt' | 'toolExecutions' | 'reportedExecutions' | 'plainCalls'>,
      client: { userAgent: string; ip: string; name?: string; version?: string },
    ): Session {
      const entry: Session = {
        ...session,
        connectedAt: now(),
        lastSeenAt: now(),
        toolExecutions: 0,
        reportedExecutions: 0,
        plainCalls: createCallRegistry(),
      };
      sessions.set(session.id, entry);
      options.events.emit('mcp.client.connected', {
        session_id: session.id,
        client_type: detectClientType(client.userAgent),
        user_agent: client.userAgent.slice(0, 1000),
        client_name: client.name?.slice(0, 200) ?? null,
        client_version: client.version?.slice(0, 100) ?? null,
        team_id: session.owner?.teamId ?? options.teamId,
        transport: 'sse',
        ip_address: client.ip.slice(0, 100),
      });
      return entry;
    },
    /**
     * The session, refreshed; undefined when unknown, expired (even if not swept yet) or opened by
     * another identity: to anyone else a session does not exist, so its id reveals nothing and the
     * other identity's requests never keep it alive.
     */
    touch(id: string, owner: SessionOwner): Session | undefined {
      const session = sessions.get(id);
      if (!session) return undefined;
      if (!sameOwner(session.owner, owner)) {
        options.logger.warn(
          { event: 'mcp.session_owner_mismatch', user_id: owner?.userId, team_id: owner?.teamId },
          'security: a session id was presented by another identity than the one that opened it',
        );
        return undefined;
      }
      if (now() - session.lastSeenAt >= options.idleTimeoutMs) {
        void remove(id, 'timeout');
        return undefined;
      }
      session.lastSeenAt = now();
      return session;
    },
    remove,
    /**
     * Removes every session idle for the timeout, and reports the tool-call count of each other one that
     * made calls since its last report (`mcp.client.activity`); the gateway calls it on a timer.
     */
    async sweep(): Promise<number> {
      const expired = [...sessions.values()].filter((s) => now() - s.lastSeenAt >= options.idleTimeoutMs);
      for (const session of sessions.values()) {
        if (session.toolExecutions === session.reportedExecutions || expired.includes(session)) continue;
        session.reportedExecutions = session.toolExecutions;
        options.events.emit('mcp.client.activity', {
          session_id: session.id,
          team_id: session.owner?.teamId ?? options.teamId,
          tool_execution_count: session.toolExecutions,
          last_activity_at: new Date(session.lastSeenAt).toISOString(),
        });
      }
      await Promise.all(expired.map((s) => remove(s.id, 'timeout')));
      if (expired.length) options.logger.debug({ expired: expired.length }, 'idle sessions removed');
      return expired.length;
    },
    /** Shutdown: the satellite ends the sessions, which from the client's side is a server-side error. */
    async closeAll(): Promise<void> {
      await Promise.all([...sessions.keys()].map((id) => remove(id, 'error')));
    },
  };
}

export type SessionStore = ReturnType<typeof createSessionStore>;
