import { createLogger } from '@orbital/logger';
import { describe, expect, it } from 'vitest';
import { createSessionlessClients, maxClientsPerIdentity } from './createSessionlessClients.ts';

type Emitted = { type: string; data: Record<string, unknown> };

function setUp(options: { maxClients?: number; maxClientsPerTeam?: number; teamId?: string | null } = {}) {
  const emitted: Emitted[] = [];
  const warnings: Record<string, unknown>[] = [];
  const logger = createLogger({ name: 'test', level: 'silent' });
  logger.warn = ((fields: Record<string, unknown>) => void warnings.push(fields)) as typeof logger.warn;
  let clock = 1_000_000;
  const clients = createSessionlessClients({
    idleTimeoutMs: 60_000,
    maxClients: options.maxClients ?? 100,
    maxClientsPerTeam: options.maxClientsPerTeam ?? options.maxClients ?? 100,
    events: { emit: (type, data) => void emitted.push({ type, data: data as Record<string, unknown> }) },
    logger,
    teamId: options.teamId ?? null,
    now: () => clock,
  });
  return {
    clients,
    emitted,
    warnings,
    advance: (ms: number) => {
      clock += ms;
    },
    of: (type: string) => emitted.filter((e) => e.type === type).map((e) => e.data),
  };
}

const cursor = { name: 'Cursor', version: '1.2.0', userAgent: 'node', ip: '10.0.0.1' };
const alice = { userId: 'alice', teamId: 'team-a' };

describe('2026-07-28 clients in the recent clients list', () => {
  it('reports a client connected on its first request, with its name, version and team', () => {
    const t = setUp({ teamId: 'team-t' });
    t.clients.seen(null, cursor, false);
    t.clients.seen(null, cursor, false);
    expect(t.of('mcp.client.connected')).toEqual([
      {
        session_id: expect.stringMatching(/^client\.[A-Za-z0-9_-]{24}$/),
        client_type: 'unknown',
        user_agent: 'node',
        client_name: 'Cursor',
        client_version: '1.2.0',
        team_id: 'team-t',
        transport: 'stateless',
        ip_address: '10.0.0.1',
      },
    ]);
    expect(t.clients.size()).toBe(1);
  });

  it('tells clients apart by identity, name, version and user agent', () => {
    const t = setUp();
    t.clients.seen(null, cursor, false);
    t.clients.seen(alice, cursor, false);
    t.clients.seen({ ...alice, userId: 'bob' }, cursor, false);
    t.clients.seen(null, { ...cursor, version: '1.3.0' }, false);
    t.clients.seen(null, { ...cursor, userAgent: 'other' }, false);
    t.clients.seen(null, { userAgent: 'node', ip: '' }, false);
    const connected = t.of('mcp.client.connected');
    expect(connected).toHaveLength(6);
    expect(new Set(connected.map((c) => c.session_id)).size).toBe(6);
    expect(connected.map((c) => c.team_id)).toEqual([null, 'team-a', 'team-a', null, null, null]);
    expect(connected[5]).toMatchObject({ client_name: null, client_version: null });
  });

  it('reports the tool calls made since the last report at each sweep, and nothing without new calls', () => {
    const t = setUp();
    t.clients.seen(alice, cursor, true);
    t.clients.seen(alice, cursor, false);
    t.clients.seen(alice, cursor, true);
    expect(t.clients.sweep()).toBe(0);
    t.clients.sweep();
    expect(t.of('mcp.client.activity')).toEqual([
      expect.objectContaining({ team_id: 'team-a', tool_execution_count: 2 }),
    ]);
    t.clients.seen(alice, cursor, true);
    t.clients.sweep();
    expect(t.of('mcp.client.activity').map((a) => a.tool_execution_count)).toEqual([2, 3]);
  });

  it('reports a client gone once idle for the timeout, with its count; a later request starts a new record', () => {
    const t = setUp();
    t.clients.seen(null, cursor, true);
    t.advance(30_000);
    t.clients.seen(null, cursor, true);
    t.advance(59_999);
    expect(t.clients.sweep()).toBe(0);
    t.advance(1);
    expect(t.clients.sweep()).toBe(1);
    const [first] = t.of('mcp.client.connected');
    expect(t.of('mcp.client.disconnected')).toEqual([
      {
        session_id: first?.session_id,
        team_id: null,
        connection_duration_seconds: 30,
        tool_execution_count: 2,
        disconnect_reason: 'timeout',
      },
    ]);
    expect(t.clients.size()).toBe(0);
    t.clients.seen(null, cursor, false);
    const ids = t.of('mcp.client.connected').map((c) => c.session_id);
    expect(ids).toHaveLength(2);
    expect(ids[1]).not.toBe(ids[0]);
  });

  it('ends an idle record when its client returns before the sweep has seen it', () => {
    const t = setUp();
    t.clients.seen(null, cursor, false);
    t.advance(60_000);
    t.clients.seen(null, cursor, false);
    expect(t.of('mcp.client.disconnected')).toHaveLength(1);
    expect(t.of('mcp.client.connected')).toHaveLength(2);
    expect(t.clients.size()).toBe(1);
  });

  it('follows at most maxClients, however many clientInfos a client invents, and serves the rest unlisted', () => {
    const t = setUp({ maxClients: 50 });
    const someone = (i: number) => ({ userId: `u${i % 1000}`, teamId: 'team-a' });
    for (let i = 0; i < 10_000; i++) t.clients.seen(someone(i), { ...cursor, version: String(i) }, true);
    expect(t.clients.size()).toBe(50);
    // Distinct clients refused are told apart up to maxClients of them: the count reads "at least".
    expect(t.clients.notFollowed()).toBe(50);
    expect(t.of('mcp.client.connected')).toHaveLength(50);
    // The followed clients' records stay true: none was ended to make room.
    expect(t.of('mcp.client.disconnected')).toHaveLength(0);
    // A place freed by the idle timeout is taken by the next new client.
    t.advance(60_000);
    t.clients.sweep();
    t.clients.seen(null, { ...cursor, version: 'late' }, false);
    expect(t.clients.size()).toBe(1);
  });

  it('counts each client refused a place once, per sweep interval, and warns once per sweep that saw some', () => {
    const t = setUp({ maxClients: 2 });
    t.clients.seen(alice, cursor, false);
    t.clients.seen(alice, { ...cursor, version: '2' }, false);
    for (let i = 0; i < 5; i++) {
      t.clients.seen(alice, { ...cursor, version: 'x' }, false);
      t.clients.seen(alice, { ...cursor, version: 'y' }, false);
    }
    expect(t.clients.notFollowed()).toBe(2);
    expect(t.warnings).toHaveLength(0);
    t.clients.sweep();
    expect(t.warnings).toEqual([expect.objectContaining({ not_followed: 2, followed: 2, max_clients: 2 })]);
    // The last interval's count stays shown until a sweep finds an interval without any.
    expect(t.clients.notFollowed()).toBe(2);
    t.clients.sweep();
    expect(t.warnings).toHaveLength(1);
    expect(t.clients.notFollowed()).toBe(0);
    // A lasting overflow is logged again, once per sweep, not once per process life.
    t.clients.seen(alice, { ...cursor, version: 'z' }, false);
    t.clients.sweep();
    expect(t.warnings).toHaveLength(2);
    expect(t.warnings[1]).toMatchObject({ not_followed: 1 });
  });

  it('keeps one team to its own share of places, so other teams stay listed', () => {
    const t = setUp({ maxClients: 100, maxClientsPerTeam: 30 });
    for (let user = 0; user < 10; user++) {
      for (let i = 0; i < 10; i++)
        t.clients.seen({ userId: `u${user}`, teamId: 'team-a' }, { ...cursor, version: String(i) }, false);
    }
    expect(t.clients.size()).toBe(30);
    expect(t.clients.notFollowed()).toBe(70);
    t.clients.seen({ userId: 'carol', teamId: 'team-b' }, cursor, false);
    expect(t.clients.size()).toBe(31);
    expect(t.of('mcp.client.connected').at(-1)).toMatchObject({ team_id: 'team-b' });
    // A place the team frees is the team's again.
    t.advance(60_000);
    t.clients.sweep();
    t.clients.seen({ userId: 'u0', teamId: 'team-a' }, cursor, false);
    expect(t.clients.size()).toBe(1);
  });

  it('counts everyone without authentication as one identity', () => {
    const t = setUp({ maxClients: 100 });
    for (let i = 0; i < 500; i++) t.clients.seen(null, { ...cursor, version: String(i) }, false);
    expect(t.clients.size()).toBe(maxClientsPerIdentity);
    t.clients.seen(alice, cursor, false);
    expect(t.clients.size()).toBe(maxClientsPerIdentity + 1);
  });

  it('keeps one authenticated identity to its own share of places', () => {
    const t = setUp({ maxClients: 100 });
    for (let i = 0; i < 500; i++) t.clients.seen(alice, { ...cursor, version: String(i) }, false);
    expect(t.clients.size()).toBe(maxClientsPerIdentity);
    t.clients.seen({ userId: 'bob', teamId: 'team-a' }, cursor, false);
    expect(t.clients.size()).toBe(maxClientsPerIdentity + 1);
  });

  it('cuts what it keeps of long names to the event contract', () => {
    const t = setUp();
    t.clients.seen(
      null,
      { name: 'n'.repeat(5000), version: 'v'.repeat(5000), userAgent: 'u'.repeat(5000), ip: '' },
      false,
    );
    expect(t.of('mcp.client.connected')[0]).toMatchObject({
      client_name: 'n'.repeat(200),
      client_version: 'v'.repeat(100),
      user_agent: 'u'.repeat(1000),
    });
  });

  it('ends every record at shutdown', () => {
    const t = setUp();
    t.clients.seen(null, cursor, false);
    t.clients.seen(alice, cursor, false);
    t.clients.closeAll();
    expect(t.of('mcp.client.disconnected').map((d) => d.disconnect_reason)).toEqual(['error', 'error']);
    expect(t.clients.size()).toBe(0);
  });
});
