import { randomUUID } from 'node:crypto';
import { jetstreamManager } from '@nats-io/jetstream';
import { auditContextOf, createAuditRelay, recordAudit } from '@orbital/audit';
import { type Bus, streamName } from '@orbital/bus';
import {
  type AuditEntry,
  type AuditEntryInput,
  auditEventsStream,
  auditSubjects,
  type CallerIdentity,
  type ProcessName,
  serviceIdentity,
  settingsSubjects,
} from '@orbital/contracts';
import { createLivePool, type LivePool } from '@orbital/db';
import { createLogger } from '@orbital/logger';
import { createTestEnvironment, markDatabaseSetUp, type TestEnvironment } from '@orbital/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adminIdentity,
  clientBus,
  type Replica,
  sqlRows,
  startReplica,
  waitForAuditEntries,
} from './settingsHarness.ts';

let env: TestEnvironment;
let store: Replica;
let client: Bus;
/** A second connection to the settings schema: an owner's pool, as recordAudit is given one. */
let ownerPool: LivePool;

const teamA = randomUUID();
const teamB = randomUUID();
const teamAdminOfA: CallerIdentity = {
  kind: 'user',
  user_id: 'u-team-admin',
  global_role: 'global_user',
  memberships: [{ team_id: teamA, role: 'team_admin' }],
};
const teamUserOfA: CallerIdentity = {
  kind: 'user',
  user_id: 'u-team-user',
  global_role: 'global_user',
  memberships: [{ team_id: teamA, role: 'team_user' }],
};

/** An entry as an owner delivers it, with what a test does not care about filled in. */
function entry(overrides: Partial<AuditEntryInput> = {}): AuditEntryInput {
  return {
    id: randomUUID(),
    occurred_at: new Date().toISOString(),
    action: 'installation.created',
    actor: { kind: 'user', id: 'u-1', email: 'ada@example.org', name: 'Ada' },
    target: { kind: 'installation', id: randomUUID() },
    team_id: teamA,
    outcome: 'success',
    reason: null,
    source_ip: '203.0.113.7',
    request_id: 'req-1',
    details: {},
    ...overrides,
  };
}

const asService = (service: ProcessName) => ({ identity: serviceIdentity(service) });
const admin = { identity: adminIdentity };

/** Waits for entries matching a filter to be in the log (delivery is asynchronous, after commit). */

beforeAll(async () => {
  env = await createTestEnvironment();
  await markDatabaseSetUp(env);
  store = await startReplica(env);
  client = await clientBus(env);
  ownerPool = createLivePool({ ...env.postgres, ssl: false }, { schema: 'settings', maximumPoolSize: 2 });
  await ownerPool.open();
});

afterAll(async () => {
  await ownerPool.end();
  await client.drain();
  await store.stop();
  const jsm = await jetstreamManager(client.connection).catch(() => null);
  await jsm?.streams.delete(streamName(client, auditEventsStream.name)).catch(() => {});
  await env.cleanup();
});

describe('recording in the owner transaction', () => {
  it('delivers an entry recorded in a committed transaction once, with the actor and origin of the request', async () => {
    const target = randomUUID();
    await ownerPool.get().transaction(async (tx) => {
      await recordAudit(tx, {
        ...auditContextOf({
          identity: adminIdentity,
          origin: { source_ip: '198.51.100.4', user_email: 'Root@Example.org', user_name: 'Root' },
          requestId: 'req-commit',
        }),
        action: 'setting.updated',
        target: { kind: 'setting', id: target },
        details: { key: 'smtp.port', old_value: '587', new_value: '2525' },
      });
    });
    const [stored, ...others] = await waitForAuditEntries(client, { target_id: target });
    expect(others).toEqual([]);
    expect(stored).toMatchObject({
      source: 'settings',
      action: 'setting.updated',
      actor: {
        kind: 'user',
        id: adminIdentity.kind === 'user' ? adminIdentity.user_id : '',
        email: 'Root@Example.org',
        name: 'Root',
      },
      target: { kind: 'setting', id: target },
      team_id: null,
      outcome: 'success',
      reason: null,
      source_ip: '198.51.100.4',
      request_id: 'req-commit',
      details: { key: 'smtp.port', old_value: '587', new_value: '2525' },
    });
    // Delivered rows leave the outbox.
    await expect
      .poll(async () => (await sqlRows(env, 'SELECT count(*)::int AS n FROM settings.audit_outbox'))[0].n)
      .toBe(0);
  });

  it('never delivers an entry whose transaction rolled back', async () => {
    const undone = randomUUID();
    const marker = randomUUID();
    await expect(
      ownerPool.get().transaction(async (tx) => {
        await recordAudit(tx, {
          ...auditContextOf({ identity: adminIdentity, origin: null }),
          action: 'setting.deleted',
          target: { kind: 'setting', id: undone },
        });
        throw new Error('the action failed after recording');
      }),
    ).rejects.toThrow('the action failed');
    // Recorded after the rolled-back one: once it is in the log, the relay has passed the other's place.
    await recordAudit(ownerPool.get(), {
      ...auditContextOf({ identity: adminIdentity, origin: null }),
      action: 'setting.deleted',
      target: { kind: 'setting', id: marker },
    });
    await waitForAuditEntries(client, { target_id: marker });
    expect((await client.request(auditSubjects.list, { target_id: undone }, admin)).entries).toEqual([]);
  });

  it('refuses, in the helper and in the log, details that name a secret', async () => {
    await expect(
      recordAudit(ownerPool.get(), {
        ...auditContextOf({ identity: adminIdentity, origin: null }),
        action: 'setting.updated',
        target: { kind: 'setting', id: 'smtp.password' },
        details: { key: 'smtp.password', new: { password: 'hunter2' } },
      }),
    ).rejects.toMatchObject({ code: 'internal' });
    await expect(
      client.request(
        auditSubjects.record,
        { entries: [entry({ details: { client_secret: 'abc' } })] },
        asService('installations'),
      ),
    ).rejects.toMatchObject({ code: 'validation_failed' });
    const everything = await sqlRows(env, `SELECT details::text AS d FROM settings.audit_entries`);
    expect(everything.map((r) => r.d).join()).not.toContain('hunter2');
  });

  it('keeps entries while the log is away and delivers them when it is back', async () => {
    const target = randomUUID();
    await store.stop();
    try {
      await recordAudit(ownerPool.get(), {
        ...auditContextOf({ identity: adminIdentity, origin: null }),
        action: 'setting.created',
        target: { kind: 'setting', id: target },
      });
      // A relay with nobody serving the log: the attempt fails, the row stays.
      const relay = createAuditRelay({
        pool: ownerPool,
        bus: client,
        logger: createLogger({ name: 'relay', level: 'silent' }),
        source: 'settings',
      });
      await relay.flush();
      const [row] = await sqlRows(env, `SELECT attempts FROM settings.audit_outbox WHERE entry->'target'->>'id' = $1`, [
        target,
      ]);
      expect(row?.attempts).toBe(1);
    } finally {
      store = await startReplica(env);
    }
    const [stored] = await waitForAuditEntries(client, { target_id: target });
    expect(stored).toMatchObject({ action: 'setting.created', source: 'settings' });
  });
});

describe('audit.entry.record', () => {
  it('stores an entry once however often it is delivered, and publishes it on its team subject', async () => {
    const one = entry();
    expect(await client.request(auditSubjects.record, { entries: [one] }, asService('installations'))).toEqual({
      stored: 1,
      already_stored: 0,
    });
    expect(await client.request(auditSubjects.record, { entries: [one] }, asService('installations'))).toEqual({
      stored: 0,
      already_stored: 1,
    });
    const stored = { ...one, source: 'installations' };
    expect((await client.request(auditSubjects.list, { target_id: one.target.id ?? '' }, admin)).entries).toEqual([
      stored,
    ]);
    const jsm = await jetstreamManager(client.connection);
    const message = await jsm.streams.getMessage(streamName(client, auditEventsStream.name), {
      last_by_subj: client.subject(`evt.audit.recorded.${teamA}`),
    });
    expect(message?.json()).toEqual(stored);
  });

  it('names the delivering service as the source, and takes entries from owners only', async () => {
    const mine = entry();
    // An entry cannot claim a source: the log takes it from the signed identity of whoever delivers.
    await expect(
      client.request(
        auditSubjects.record,
        { entries: [{ ...mine, source: 'gateway-api' } as AuditEntryInput] },
        asService('installations'),
      ),
    ).rejects.toMatchObject({ code: 'validation_failed' });
    await client.request(auditSubjects.record, { entries: [mine] }, asService('satellite-registry'));
    const [stored] = await waitForAuditEntries(client, { target_id: mine.target.id });
    expect(stored?.source).toBe('satellite-registry');
    await expect(client.request(auditSubjects.record, { entries: [entry()] }, asService('jobs'))).rejects.toMatchObject(
      { code: 'forbidden' },
    );
    await expect(client.request(auditSubjects.record, { entries: [entry()] }, admin)).rejects.toMatchObject({
      code: 'forbidden',
    });
  });
});

describe('audit.entry.list', () => {
  const kind = `paging_${randomUUID().slice(0, 8)}`;
  const seeded: AuditEntryInput[] = [];

  beforeAll(async () => {
    const base = Date.parse('2030-01-01T12:00:00.000Z');
    // Seven entries, three of them in the same millisecond: a page boundary falls among them.
    const times = [0, 1000, 1000, 1000, 2000, 3000, 4000];
    times.forEach((offset, i) => {
      seeded.push(
        entry({
          occurred_at: new Date(base + offset).toISOString(),
          target: { kind, id: `t${i}` },
          team_id: i % 2 === 0 ? teamA : teamB,
          outcome: i === 3 ? 'failure' : 'success',
          reason: i === 3 ? 'invalid_credentials' : null,
          action: i === 5 ? 'template.deleted' : 'installation.updated',
          actor:
            i === 6
              ? { kind: 'user', id: 'u-grace', email: 'Grace@Example.org', name: 'Grace' }
              : { kind: 'user', id: 'u-1', email: 'ada@example.org', name: 'Ada' },
        }),
      );
    });
    await client.request(auditSubjects.record, { entries: seeded }, asService('installations'));
  });

  const newestFirst = () =>
    [...seeded].sort((a, b) => b.occurred_at.localeCompare(a.occurred_at) || b.id.localeCompare(a.id));

  it('pages newest first, never skipping or repeating an entry across pages', async () => {
    const seen: AuditEntry[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await client.request(
        auditSubjects.list,
        { target_kind: kind, limit: 3, ...(cursor ? { cursor } : {}) },
        admin,
      );
      seen.push(...page.entries);
      cursor = page.next_cursor ?? undefined;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual(newestFirst().map((e) => ({ ...e, source: 'installations' })));
  });

  it('filters by actor (id or e-mail in any case), action or kind, outcome, team and time', async () => {
    const ids = async (query: Record<string, unknown>) =>
      (await client.request(auditSubjects.list, { target_kind: kind, ...query }, admin)).entries.map(
        (e) => e.target.id,
      );
    expect(await ids({ actor: 'grace@example.ORG' })).toEqual(['t6']);
    expect(await ids({ actor: 'u-grace' })).toEqual(['t6']);
    expect(await ids({ action: 'template.deleted' })).toEqual(['t5']);
    expect(await ids({ action: 'installation.*' })).toHaveLength(6);
    expect(await ids({ outcome: 'failure' })).toEqual(['t3']);
    expect(await ids({ team_id: teamB })).toEqual(expect.arrayContaining(['t1', 't3', 't5']));
    expect(await ids({ team_id: teamB })).toHaveLength(3);
    expect(await ids({ from: '2030-01-01T12:00:03.000Z', to: '2030-01-01T12:00:04.000Z' })).toEqual(['t5']);
  });

  it("shows a team's admins their team's entries and refuses them the rest", async () => {
    const page = await client.request(
      auditSubjects.list,
      { target_kind: kind, team_id: teamA },
      { identity: teamAdminOfA },
    );
    expect(page.entries.map((e) => e.team_id)).toEqual([teamA, teamA, teamA, teamA]);
    await expect(
      client.request(auditSubjects.list, { target_kind: kind }, { identity: teamAdminOfA }),
    ).rejects.toMatchObject({ code: 'forbidden' });
    await expect(
      client.request(auditSubjects.list, { target_kind: kind, team_id: teamB }, { identity: teamAdminOfA }),
    ).rejects.toMatchObject({ code: 'forbidden' });
    await expect(
      client.request(auditSubjects.list, { target_kind: kind, team_id: teamA }, { identity: teamUserOfA }),
    ).rejects.toMatchObject({ code: 'forbidden' });
    await expect(
      client.request(auditSubjects.list, { team_id: teamA }, { identity: { kind: 'anonymous' } }),
    ).rejects.toMatchObject({ code: 'unauthenticated' });
  });

  it('refuses a cursor it did not give', async () => {
    await expect(client.request(auditSubjects.list, { cursor: 'bm90LWEtY3Vyc29y' }, admin)).rejects.toMatchObject({
      code: 'validation_failed',
      details: [{ path: 'query.cursor' }],
    });
  });
});

describe('audit.entry.prune', () => {
  it('removes entries past the retention setting and records that it did', async () => {
    const kind = `retention_${randomUUID().slice(0, 8)}`;
    const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();
    await client.request(
      auditSubjects.record,
      {
        entries: [
          entry({ target: { kind, id: 'old' }, occurred_at: daysAgo(40) }),
          entry({ target: { kind, id: 'recent' }, occurred_at: daysAgo(10) }),
        ],
      },
      asService('installations'),
    );
    await client.request(
      settingsSubjects.updateSetting,
      { key: 'audit.retention_days', changes: { value: '30' } },
      admin,
    );
    const reply = await client.request(auditSubjects.prune, {}, asService('jobs'));
    expect(reply).toMatchObject({ retention_days: 30 });
    expect(reply.removed).toBeGreaterThanOrEqual(1);
    const left = await client.request(auditSubjects.list, { target_kind: kind }, admin);
    expect(left.entries.map((e) => e.target.id)).toEqual(['recent']);
    const [pruned] = await waitForAuditEntries(client, { action: 'audit.pruned' });
    expect(pruned).toMatchObject({
      source: 'settings',
      actor: { kind: 'process', id: 'jobs' },
      details: { removed: reply.removed, retention_days: 30 },
    });
    await expect(client.request(auditSubjects.prune, {}, admin)).rejects.toMatchObject({ code: 'forbidden' });
  });
});
