import { randomUUID } from 'node:crypto';
import type { Bus } from '@orbital/bus';
import { type AuditEntry, type AuditEntryInput, auditSubjects, serviceIdentity } from '@orbital/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSse } from './sseClient.ts';
import { type StreamTestStack, startStreamTestStack, waitUntil } from './streamTestStack.ts';

let streams: StreamTestStack;
let bus: Bus;
let teamA = '';
let teamB = '';
const call: StreamTestStack['call'] = (...args) => streams.call(...args);

/** Entries as the installations service would deliver them, each in a kind of its own test. */
function entry(kind: string, overrides: Partial<AuditEntryInput> = {}): AuditEntryInput {
  return {
    id: randomUUID(),
    occurred_at: new Date().toISOString(),
    action: 'installation.created',
    actor: { kind: 'user', id: randomUUID(), email: 'ada@example.org', name: 'Ada' },
    target: { kind, id: randomUUID() },
    team_id: teamA,
    outcome: 'success',
    reason: null,
    source_ip: '203.0.113.9',
    request_id: null,
    details: {},
    ...overrides,
  };
}

async function deliver(entries: AuditEntryInput[]): Promise<void> {
  for (let i = 0; i < entries.length; i += 100) {
    await bus.request(
      auditSubjects.record,
      { entries: entries.slice(i, i + 100) },
      { identity: serviceIdentity('installations') },
    );
  }
}

/**
 * Registers a `beforeAll` in the calling describe that delivers the entries its tests read: `count` of
 * `kind`, one every `stepMs` from `agoMs` ago, the i-th with what `nth(i)` sets. The array it returns is
 * empty until that hook has run (the entries need the stack's teams and the time the hook runs at).
 */
function seedBeforeTests(
  kind: string,
  count: number,
  spacing: { agoMs: number; stepMs: number },
  nth: (i: number) => Partial<AuditEntryInput>,
): AuditEntryInput[] {
  const seeded: AuditEntryInput[] = [];
  beforeAll(async () => {
    const base = Date.now() - spacing.agoMs;
    for (let i = 0; i < count; i++) {
      seeded.push(entry(kind, { occurred_at: new Date(base + i * spacing.stepMs).toISOString(), ...nth(i) }));
    }
    await deliver(seeded);
  });
  return seeded;
}

const kindOf = (what: string) => `${what}_${randomUUID().slice(0, 8)}`;
const newestFirst = (entries: AuditEntryInput[]) =>
  [...entries].sort((a, b) => b.occurred_at.localeCompare(a.occurred_at) || b.id.localeCompare(a.id));

beforeAll(async () => {
  streams = await startStreamTestStack();
  ({ teamA, teamB } = streams);
  const gateway = streams.stack.gateways[0];
  if (!gateway) throw new Error('no gateway');
  bus = gateway.bus;
});

afterAll(async () => {
  await streams?.stop();
});

describe('GET /api/audit and /api/teams/:teamId/audit', () => {
  const kind = kindOf('pages');
  const seeded = seedBeforeTests(kind, 6, { agoMs: 60_000, stepMs: 1000 }, (i) => ({ team_id: i < 4 ? teamA : teamB }));

  it('gives global admins every entry, page by page, newest first', async () => {
    const first = await call('GET', `/api/audit?target_kind=${kind}&limit=4`, 'admin');
    expect(first.status).toBe(200);
    const second = await call(
      'GET',
      `/api/audit?target_kind=${kind}&limit=4&cursor=${first.body.data.next_cursor}`,
      'admin',
    );
    expect(second.body.data.next_cursor).toBeNull();
    const ids = [...first.body.data.entries, ...second.body.data.entries].map((e: AuditEntry) => e.id);
    expect(ids).toEqual(newestFirst(seeded).map((e) => e.id));
  });

  it("gives a team's admins their team's entries only, and refuses its users and other teams", async () => {
    const own = await call('GET', `/api/teams/${teamA}/audit?target_kind=${kind}`, 'teamAdmin');
    expect(own.status).toBe(200);
    expect(own.body.data.entries).toHaveLength(4);
    expect(new Set(own.body.data.entries.map((e: AuditEntry) => e.team_id))).toEqual(new Set([teamA]));
    expect((await call('GET', `/api/teams/${teamA}/audit`, 'teamUser')).status).toBe(403);
    expect((await call('GET', `/api/teams/${teamA}/audit`, 'otherTeam')).status).toBe(403);
    expect((await call('GET', '/api/audit', 'teamAdmin')).status).toBe(403);
    // A team path names its team: a query cannot widen it to another.
    const widened = await call('GET', `/api/teams/${teamA}/audit?team_id=${teamB}`, 'teamAdmin');
    expect(widened.status).toBe(400);
  });

  it('answers bad filters with 400 naming the field', async () => {
    for (const [query, path] of [
      ['limit=501', 'query.limit'],
      ['action=DROP%20TABLE', 'query.action'],
      ['from=yesterday', 'query.from'],
      ['outcome=maybe', 'query.outcome'],
      ['cursor=not-a-cursor', 'query.cursor'],
    ]) {
      const response = await call('GET', `/api/audit?${query}`, 'admin');
      expect(response.status, query).toBe(400);
      expect(response.body.error.details, query).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
    }
  });
});

describe('GET /api/audit/stream', () => {
  it('sends the first page, then each new entry that matches, and replays what a client missed', async () => {
    const kind = kindOf('live');
    const before = entry(kind);
    await deliver([before]);
    const url = `${streams.base}/api/audit/stream?target_kind=${kind}`;
    const client = await openSse(url, streams.cookieOf('admin'));
    expect(client.status).toBe(200);
    const [snapshot] = await client.waitForCount(1);
    expect(snapshot?.event).toBe('snapshot');
    expect(JSON.parse(snapshot?.data ?? '{}').entries.map((e: AuditEntry) => e.id)).toEqual([before.id]);

    const live = entry(kind);
    await deliver([entry(kindOf('elsewhere')), live]);
    const [, update] = await client.waitForCount(2);
    expect(update?.event).toBe('update');
    expect(JSON.parse(update?.data ?? '{}')).toMatchObject({ id: live.id, source: 'installations' });
    const seen = client.lastEventId();
    client.close();

    const missed = entry(kind);
    await deliver([missed]);
    const again = await openSse(url, { ...streams.cookieOf('admin'), 'last-event-id': seen });
    const [replayed] = await again.waitForCount(1);
    // A replay sends what came after the client's last id, and no snapshot.
    expect(replayed?.event).toBe('update');
    expect(JSON.parse(replayed?.data ?? '{}').id).toBe(missed.id);
    again.close();
  });

  it("streams a team's entries to its admins and nothing of other teams", async () => {
    const kind = kindOf('team_live');
    const client = await openSse(
      `${streams.base}/api/teams/${teamA}/audit/stream?target_kind=${kind}`,
      streams.cookieOf('teamAdmin'),
    );
    expect(client.status).toBe(200);
    await client.waitForCount(1);
    const other = entry(kind, { team_id: teamB });
    const own = entry(kind, { team_id: teamA });
    await deliver([other, own]);
    const [, update] = await client.waitForCount(2);
    expect(JSON.parse(update?.data ?? '{}').id).toBe(own.id);
    expect(client.raw()).not.toContain(other.id);
    client.close();
    const refused = await openSse(`${streams.base}/api/teams/${teamA}/audit/stream`, streams.cookieOf('teamUser'));
    expect(refused.status).toBe(403);
  });
});

describe('GET /api/audit/export', () => {
  const kind = kindOf('export');
  // More than two pages of the export's 500, so paging is crossed twice.
  const seeded = seedBeforeTests(kind, 1100, { agoMs: 3_600_000, stepMs: 10 }, (i) => ({
    team_id: i % 10 === 0 ? teamB : teamA,
    actor: { kind: 'user', id: 'u-x', email: 'x@example.org', name: i === 7 ? '=HYPERLINK("http://evil")' : 'X' },
  }));

  it('writes every matching entry as JSON, in order, across pages', async () => {
    const response = await streams.app.inject({
      method: 'GET',
      url: `/api/audit/export?format=json&target_kind=${kind}`,
      headers: streams.cookieOf('admin'),
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.headers['content-disposition']).toMatch(/^attachment; filename="audit-.*\.json"$/);
    const exported = response.json() as AuditEntry[];
    expect(exported.map((e) => e.id)).toEqual(newestFirst(seeded).map((e) => e.id));
  });

  it('writes CSV with a header, one row per entry, and formulas kept as text', async () => {
    const response = await streams.app.inject({
      method: 'GET',
      url: `/api/audit/export?target_kind=${kind}`,
      headers: streams.cookieOf('admin'),
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/csv/);
    const lines = response.body.trimEnd().split('\r\n');
    expect(lines[0]).toBe(
      'id,occurred_at,source,action,outcome,reason,actor_kind,actor_id,actor_email,actor_name,target_kind,target_id,team_id,source_ip,request_id,details',
    );
    expect(lines).toHaveLength(1101);
    expect(response.body).toContain('"\'=HYPERLINK(""http://evil"")"');
    expect(response.body).not.toMatch(/(^|,)"?=HYPERLINK/m);
  });

  it("exports a team's entries for its admins, and records who exported what", async () => {
    const response = await streams.app.inject({
      method: 'GET',
      url: `/api/teams/${teamA}/audit/export?format=json&target_kind=${kind}`,
      headers: streams.cookieOf('teamAdmin'),
    });
    expect(response.statusCode).toBe(200);
    const exported = response.json() as AuditEntry[];
    expect(exported).toHaveLength(990);
    expect(exported.every((e) => e.team_id === teamA)).toBe(true);
    await waitUntil(async () => {
      const page = await call('GET', `/api/teams/${teamA}/audit?action=audit.exported`, 'teamAdmin');
      return page.body.data.entries.some((e: AuditEntry) => e.details.entries === 990);
    }, 15000);
    const recorded = (await call('GET', `/api/teams/${teamA}/audit?action=audit.exported`, 'teamAdmin')).body.data
      .entries[0] as AuditEntry;
    expect(recorded).toMatchObject({
      source: 'gateway-api',
      actor: { kind: 'user', email: 'teamadmin@orbital.test', name: 'teamAdmin' },
      team_id: teamA,
      outcome: 'success',
      details: { format: 'json', entries: 990, filter: { target_kind: kind } },
    });
    expect(recorded.source_ip).toBeTruthy();
    expect((await call('GET', `/api/teams/${teamA}/audit/export`, 'teamUser')).status).toBe(403);
  });
});

describe('the log away', () => {
  it('answers 503, for pages, streams and exports alike', async () => {
    // Last in the file: the settings service, which stores the log, stops for good.
    await streams.stack.stopSettings();
    for (const url of ['/api/audit', '/api/audit/export', '/api/audit/stream']) {
      const response = await streams.app.inject({ method: 'GET', url, headers: streams.cookieOf('admin') });
      expect(response.statusCode, url).toBe(503);
      expect(response.json()).toMatchObject({ success: false, error: { code: 'unavailable' } });
    }
  });
});
