import { randomUUID } from 'node:crypto';
import type { Bus } from '@orbital/bus';
import { type AuditEntry, auditSubjects, dbSetupSubject, settingsSubjects as s } from '@orbital/contracts';
import { createTestEnvironment, markDatabaseSetUp, type TestEnvironment } from '@orbital/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminIdentity, clientBus, type Replica, startReplica, waitForAuditEntries } from './settingsHarness.ts';

let env: TestEnvironment;
let replica: Replica;
let client: Bus;
const origin = { source_ip: '198.51.100.23', user_email: 'root@example.org', user_name: 'Root' };
const admin = { identity: adminIdentity, origin };

beforeAll(async () => {
  env = await createTestEnvironment();
  await markDatabaseSetUp(env);
  replica = await startReplica(env);
  client = await clientBus(env);
});

afterAll(async () => {
  await client.drain();
  await replica.stop();
  await env.cleanup();
});

describe('setting changes', () => {
  it('records a plain setting created, changed and deleted, with its key and values, as the person who did it', async () => {
    const key = `audit_${randomUUID().slice(0, 8)}.colour`;
    await client.request(s.createSetting, { key, value: 'blue', group_id: 'global' }, admin);
    await client.request(s.updateSetting, { key, changes: { value: 'green' } }, admin);
    await client.request(s.deleteSetting, { key }, admin);
    const [deleted, updated, created] = await waitForAuditEntries(client, { target_id: key }, 3);
    expect(created).toMatchObject({
      source: 'settings',
      action: 'setting.created',
      actor: { kind: 'user', id: 'u-admin', email: 'root@example.org', name: 'Root' },
      source_ip: '198.51.100.23',
      details: { key, encrypted: false, new_value: 'blue' },
    });
    expect(updated).toMatchObject({
      action: 'setting.updated',
      details: { key, old_value: 'blue', new_value: 'green', changed: ['value'] },
    });
    expect(deleted).toMatchObject({ action: 'setting.deleted', details: { key, old_value: 'green' } });
  });

  it('never records the value of an encrypted setting, nor of one being encrypted', async () => {
    const key = `audit_${randomUUID().slice(0, 8)}.api_secret`;
    const secrets = ['first-secret-value', 'second-secret-value', 'plain-then-secret'] as const;
    await client.request(s.createSetting, { key, value: secrets[0], encrypted: true }, admin);
    await client.request(s.updateSetting, { key, changes: { value: secrets[1] } }, admin);
    const other = `audit_${randomUUID().slice(0, 8)}.token_later`;
    await client.request(s.createSetting, { key: other, value: 'x' }, admin);
    await client.request(s.updateSetting, { key: other, changes: { value: secrets[2], encrypted: true } }, admin);
    await client.request(
      s.bulkSettings,
      {
        settings: [
          { key, value: 'bulk-secret-value' },
          { key: other, value: 'bulk-secret-two' },
        ],
      },
      admin,
    );
    const entries = [
      ...(await waitForAuditEntries(client, { target_id: key }, 3)),
      ...(await waitForAuditEntries(client, { target_id: other }, 3)),
    ];
    expect(
      entries.find((e) => e.action === 'setting.updated' && e.target.id === key && !e.details.bulk)?.details,
    ).toEqual({
      key,
      group_id: null,
      encrypted: true,
      changed: ['value'],
    });
    expect(
      entries.find((e) => e.details.changed && (e.details.changed as string[]).includes('encrypted'))?.details,
    ).toMatchObject({ key: other, encrypted: true, changed: ['value', 'encrypted'] });
    const text = JSON.stringify(entries);
    for (const secret of [...secrets, 'bulk-secret-value', 'bulk-secret-two']) expect(text).not.toContain(secret);
    expect(entries.filter((e) => e.details.bulk === true)).toHaveLength(2);
  });

  it('records nothing for a bulk write that is refused as a whole', async () => {
    const key = `audit_${randomUUID().slice(0, 8)}.refused`;
    await expect(
      client.request(
        s.bulkSettings,
        {
          settings: [
            { key, value: 'a' },
            { key: 'x.y', value: 'b', group_id: 'no-such-group' },
          ],
        },
        admin,
      ),
    ).rejects.toMatchObject({ code: 'validation_failed' });
    const marker = `audit_${randomUUID().slice(0, 8)}.marker`;
    await client.request(s.createSetting, { key: marker, value: 'm' }, admin);
    await waitForAuditEntries(client, { target_id: marker });
    expect((await client.request(auditSubjects.list, { target_id: key }, { identity: adminIdentity })).entries).toEqual(
      [],
    );
  });

  it('records setting groups created and changed', async () => {
    const id = `g${randomUUID().slice(0, 8)}`;
    await client.request(s.createGroup, { id, name: 'Audited group' }, admin);
    await client.request(s.updateGroup, { group_id: id, changes: { name: 'Renamed', icon: 'star' } }, admin);
    const [updated, created] = await waitForAuditEntries(client, { target_id: id }, 2);
    expect(created).toMatchObject({ action: 'setting_group.created', details: { name: 'Audited group' } });
    expect(updated).toMatchObject({ action: 'setting_group.updated', details: { changed: ['icon', 'name'] } });
  });
});

describe('database setup', () => {
  it('records the setup, who asked from where and which services did not confirm', async () => {
    const fresh = await createTestEnvironment();
    const settings = await startReplica(fresh, { DB_SETUP_SERVICE_TIMEOUT_MS: '300' });
    const bus = await clientBus(fresh);
    try {
      const reply = await bus.request(
        dbSetupSubject,
        { type: 'postgresql' },
        { identity: { kind: 'anonymous' }, origin: { source_ip: '192.0.2.5' }, timeoutMs: 20000 },
      );
      expect(reply.restart_required).toBe(true);
      const deadline = Date.now() + 15000;
      let found: AuditEntry[] = [];
      while (found.length === 0 && Date.now() < deadline) {
        found = (await bus.request(auditSubjects.list, { action: 'database.setup' }, { identity: adminIdentity }))
          .entries;
        if (found.length === 0) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(found).toHaveLength(1);
      expect(found[0]).toMatchObject({
        source: 'settings',
        actor: { kind: 'anonymous' },
        source_ip: '192.0.2.5',
        target: { kind: 'database' },
        details: { database_type: 'postgresql', unconfirmed_services: ['identity', 'registry', 'installations'] },
      });
    } finally {
      await bus.drain();
      await settings.stop();
      await fresh.cleanup();
    }
  });
});
