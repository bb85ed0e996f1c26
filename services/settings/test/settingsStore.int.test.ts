import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { auditContextOf } from '@orbital/audit';
import { type Bus, streamName } from '@orbital/bus';
import { settingsSubjects as s, settingsChangedEvent, settingsEventsStream } from '@orbital/contracts';
import { createNatsSettingsSource, createSettingsReader } from '@orbital/settings-client';
import { createTestEnvironment, markDatabaseSetUp, type TestEnvironment } from '@orbital/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adminIdentity,
  clientBus,
  logLines,
  type Replica,
  serviceCaller,
  sqlRows,
  startReplica,
  userIdentity,
} from './settingsHarness.ts';

let env: TestEnvironment;
let a: Replica;
let b: Replica;
let client: Bus;
const admin = { identity: adminIdentity };

const fixtures = join(import.meta.dirname, 'fixtures');

beforeAll(async () => {
  env = await createTestEnvironment();
  await markDatabaseSetUp(env);
  const plugins = {
    SETTINGS_PLUGIN_MODULES: `${join(fixtures, 'firstPlugin.ts')},${join(fixtures, 'secondPlugin.ts')}`,
  };
  a = await startReplica(env, plugins);
  b = await startReplica(env, plugins);
  client = await clientBus(env);
});

afterAll(async () => {
  await client.drain();
  await a.stop();
  await b.stop();
  await env.cleanup();
});

describe('initialisation from definitions', () => {
  it('creates the built-in groups and their settings with the spec defaults', async () => {
    const groups = await client.request(s.listGroups, {}, admin);
    expect(groups.map((g) => g.id)).toEqual(['global', 'smtp', 'repohost-oauth', 'oidc', 'discovery', 'audit', 'siem']);
    const smtp = groups.find((g) => g.id === 'smtp');
    expect(smtp).toMatchObject({ name: 'SMTP Mail Settings', icon: 'mail', sort_order: 1 });
    expect(Object.fromEntries((smtp?.settings ?? []).map((x) => [x.key, x.value]))).toEqual({
      'smtp.from_email': '',
      'smtp.from_name': 'Orbital',
      'smtp.host': '',
      'smtp.password': null,
      'smtp.port': '587',
      'smtp.secure': 'true',
      'smtp.username': '',
    });
    // Exactly the fields of a setting inside a group of the list-all-groups response.
    expect(Object.keys(smtp?.settings[0] ?? {}).sort()).toEqual([
      'created_at',
      'description',
      'is_encrypted',
      'key',
      'updated_at',
      'value',
    ]);
    const global = await client.request(s.listGroupSettings, { group_id: 'global' }, admin);
    expect(global.find((x) => x.key === 'global.enable_swagger_docs')?.value).toBe('true');
    const repohost = await client.request(s.getSetting, { key: 'repohost.oauth.scope' }, admin);
    expect(repohost.value).toBe('user:email');
  });

  it('logs the summary and warns about required settings still empty, but not of a mail server while mail is off', () => {
    const lines = logLines(a.logs());
    expect(lines.find((l) => l.msg === 'settings initialised from definitions')).toMatchObject({
      skipped: expect.any(Number),
    });
    const warning = lines.find((l) => l.msg === 'required settings in use are still empty');
    expect(warning).toMatchObject({ level: 'warn' });
    expect(warning?.settings).toContain('siem.token');
    expect(warning?.settings).not.toContain('smtp.host');
    expect(warning?.settings).not.toContain('smtp.password');
  });

  it('warns about an empty mail server once mail is on', async () => {
    await client.request(s.updateSetting, { key: 'global.send_mail', changes: { value: true } }, admin);
    const restarted = await startReplica(env);
    try {
      const warning = logLines(restarted.logs()).find((l) => l.msg === 'required settings in use are still empty');
      expect(warning?.settings).toContain('smtp.host');
      // No user name is set, so no password is asked for.
      expect(warning?.settings).not.toContain('smtp.password');
    } finally {
      await client.request(s.updateSetting, { key: 'global.send_mail', changes: { value: false } }, admin);
      await restarted.stop();
    }
  });

  it('applies plugin extensions: core wins, and the first plugin wins over later ones', async () => {
    expect((await client.request(s.getSetting, { key: 'smtp.host' }, admin)).value).toBe('');
    expect((await client.request(s.getSetting, { key: 'siem.endpoint' }, admin)).value).toBe(
      'https://siem.example.org',
    );
    expect((await client.request(s.getSetting, { key: 'siem.retention_days' }, admin)).value).toBe('30');
    const ignored = logLines(a.logs()).filter((l) => l.msg === 'plugin setting ignored: the key is already defined');
    expect(ignored.map((l) => [l.key, l.definedBy])).toEqual([
      ['smtp.host', 'core'],
      ['siem.endpoint', expect.stringContaining('firstPlugin.ts')],
    ]);
  });

  it('restarting keeps changed values and creates no duplicates', async () => {
    await client.request(s.updateSetting, { key: 'smtp.port', changes: { value: '2525' } }, admin);
    const before = await sqlRows(env, 'SELECT count(*)::int AS n FROM settings.settings');
    const restarted = await startReplica(env);
    expect(await restarted.app.operations.getSetting({ key: 'smtp.port' })).toMatchObject({ value: '2525' });
    expect(await sqlRows(env, 'SELECT count(*)::int AS n FROM settings.settings')).toEqual(before);
    expect(restarted.logs()).toMatch(/"created":0/);
    await restarted.stop();
  });
});

describe('encryption at rest', () => {
  it('stores ciphertext, never answers it, and gives plaintext to platform services only', async () => {
    const created = await client.request(
      s.createSetting,
      { key: 'integrations.api_key', value: 'sk-live-123456', encrypted: true, group_id: 'global' },
      admin,
    );
    expect(created).toMatchObject({ value: null, has_value: true, is_encrypted: true });
    const [row] = await sqlRows(env, "SELECT value FROM settings.settings WHERE key = 'integrations.api_key'");
    expect(row.value).not.toContain('sk-live');
    expect(row.value).toMatch(/^v1:/);
    expect(await client.request(s.getValues, { keys: ['integrations.api_key'] }, { identity: serviceCaller })).toEqual({
      values: { 'integrations.api_key': 'sk-live-123456' },
      unreadable: [],
    });
    await expect(client.request(s.getValues, { keys: ['integrations.api_key'] }, admin)).rejects.toMatchObject({
      code: 'forbidden',
    });
  });

  it('detects a flipped byte in the stored ciphertext', async () => {
    await client.request(
      s.createSetting,
      { key: 'integrations.tampered', value: 'secret-value', encrypted: true },
      admin,
    );
    const [row] = await sqlRows(env, "SELECT value FROM settings.settings WHERE key = 'integrations.tampered'");
    const parts = String(row.value).split(':');
    const data = Buffer.from(parts[3] ?? '', 'base64url');
    data[0] = (data[0] ?? 0) ^ 0xff;
    parts[3] = data.toString('base64url');
    await sqlRows(env, "UPDATE settings.settings SET value = $1 WHERE key = 'integrations.tampered'", [
      parts.join(':'),
    ]);
    await a.app.operations.reload();
    await b.app.operations.reload();
    const single = await client.request(s.getValues, { keys: ['integrations.tampered'] }, { identity: serviceCaller });
    expect(single).toEqual({ values: {}, unreadable: ['integrations.tampered'] });
    expect(JSON.stringify(single)).not.toContain('secret-value');
  });

  it('keeps serving the rest of a group when one of its values is tampered with, and reports it', async () => {
    await client.request(s.createGroup, { id: 'relay', name: 'Mail relay' }, admin);
    await client.request(s.createSetting, { key: 'relay.port', value: '2525', group_id: 'relay' }, admin);
    await client.request(
      s.createSetting,
      { key: 'relay.password', value: 'relay-secret', encrypted: true, group_id: 'relay' },
      admin,
    );
    // A ciphertext copied from another key: authentic, but bound to that key, so it must not decrypt here.
    const [other] = await sqlRows(env, "SELECT value FROM settings.settings WHERE key = 'integrations.api_key'");
    await sqlRows(env, "UPDATE settings.settings SET value = $1 WHERE key = 'relay.password'", [other.value]);
    await a.app.operations.reload();
    await b.app.operations.reload();
    const group = await client.request(s.getValues, { group_id: 'relay' }, { identity: serviceCaller });
    expect(group.unreadable).toEqual(['relay.password']);
    expect(group.values['relay.port']).toBe('2525');
    expect(group.values).not.toHaveProperty('relay.password');
    const health = await client.request(s.health, {}, admin);
    expect(health.status).toBe('unhealthy');
    expect(health.encryption).toMatchObject({
      status: 'unhealthy',
      undecryptable: { count: 2, keys: ['integrations.tampered', 'relay.password'] },
    });
    expect(JSON.stringify(health)).not.toMatch(/secret|sk-live|v1:/);
    const reader = createSettingsReader(createNatsSettingsSource(client, serviceCaller));
    await expect(reader.required('relay.password')).rejects.toMatchObject({
      code: 'internal',
      message: 'Setting relay.password cannot be decrypted; set it again',
    });
    expect(await reader.group('relay')).toEqual({ port: '2525' });
    // Setting it again repairs it.
    await client.request(s.updateSetting, { key: 'relay.password', changes: { value: 'relay-2' } }, admin);
    await client.request(s.deleteSetting, { key: 'integrations.tampered' }, admin);
    expect((await client.request(s.health, {}, admin)).encryption.undecryptable).toEqual({ count: 0, keys: [] });
  });

  it('turns encryption off only with a new value, never revealing or storing the old one in clear', async () => {
    await client.request(
      s.createSetting,
      { key: 'integrations.webhook_secret', value: 'whsec-old', encrypted: true },
      admin,
    );
    const refused = await client
      .request(s.updateSetting, { key: 'integrations.webhook_secret', changes: { encrypted: false } }, admin)
      .catch((e) => e);
    expect(refused).toMatchObject({ code: 'validation_failed', details: [{ path: 'body.value' }] });
    expect(JSON.stringify(refused)).not.toContain('whsec-old');
    const [row] = await sqlRows(
      env,
      "SELECT value, is_encrypted FROM settings.settings WHERE key = 'integrations.webhook_secret'",
    );
    expect(row.is_encrypted).toBe(true);
    expect(row.value).not.toContain('whsec-old');
    const changed = await client.request(
      s.updateSetting,
      { key: 'integrations.webhook_secret', changes: { encrypted: false, value: 'not-a-secret-any-more' } },
      admin,
    );
    expect(changed).toMatchObject({ is_encrypted: false, value: 'not-a-secret-any-more' });
  });

  it('re-stores the current value when only the encrypted flag changes', async () => {
    await client.request(s.createSetting, { key: 'integrations.toggle', value: 'plain-then-secret' }, admin);
    await client.request(s.updateSetting, { key: 'integrations.toggle', changes: { encrypted: true } }, admin);
    const [row] = await sqlRows(
      env,
      "SELECT value, is_encrypted FROM settings.settings WHERE key = 'integrations.toggle'",
    );
    expect(row.is_encrypted).toBe(true);
    expect(row.value).not.toContain('plain-then-secret');
    expect(
      (await client.request(s.getValues, { keys: ['integrations.toggle'] }, { identity: serviceCaller })).values,
    ).toEqual({
      'integrations.toggle': 'plain-then-secret',
    });
  });

  it('reports encryption health by round trip without revealing anything', async () => {
    const health = await client.request(s.health, {}, admin);
    expect(health).toMatchObject({
      status: 'healthy',
      encryption: { status: 'healthy', algorithm: 'aes-256-gcm', undecryptable: { count: 0, keys: [] } },
      cache: { ready: true },
    });
  });
});

describe('cache coherence across replicas', () => {
  /** Who the operations record as acting when a test calls them without a request. */
  const asAdmin = auditContextOf({ identity: adminIdentity, origin: null });

  it('a write through one replica is read back through the other after one NATS round trip', async () => {
    for (const [writer, reader] of [
      [a, b],
      [b, a],
    ] as const) {
      const value = `https://v${Math.random().toString(36).slice(2)}.example.org`;
      await writer.app.operations.updateSetting({ key: 'global.page_url', changes: { value } }, asAdmin);
      // One round trip on the reader's connection: the broadcast sent before it has been applied.
      await reader.bus.flush();
      expect((await reader.app.operations.getSetting({ key: 'global.page_url' })).value).toBe(value);
    }
    await a.app.operations.deleteSetting({ key: 'integrations.toggle' }, asAdmin);
    await b.bus.flush();
    await expect(b.app.operations.getSetting({ key: 'integrations.toggle' })).rejects.toMatchObject({
      code: 'not_found',
    });
  });

  it('serves reads from memory: a row changed behind its back is not seen until a reload', async () => {
    await sqlRows(env, "UPDATE settings.settings SET value = 'changed-in-sql' WHERE key = 'smtp.from_name'");
    expect((await a.app.operations.getSetting({ key: 'smtp.from_name' })).value).toBe('Orbital');
    await a.app.operations.reload();
    expect((await a.app.operations.getSetting({ key: 'smtp.from_name' })).value).toBe('changed-in-sql');
  });
});

describe('the settings domain event', () => {
  it('stores evt.settings.changed in JetStream with the changed keys, never their values', async () => {
    await client.request(s.updateSetting, { key: 'smtp.from_email', changes: { value: 'ops@example.org' } }, admin);
    const jsm = await jetstreamManager(client.connection);
    const stored = await jsm.streams.getMessage(streamName(client, settingsEventsStream.name), {
      last_by_subj: client.subject(settingsChangedEvent.subject),
    });
    expect(stored?.json()).toMatchObject({ keys: ['smtp.from_email'], action: 'updated' });
    expect(stored?.string()).not.toContain('ops@example.org');
  });
});

describe('bulk writes', () => {
  it('applies all items or none, reporting each bad item', async () => {
    const error = await client
      .request(
        s.bulkSettings,
        {
          settings: [
            { key: 'bulk.one', value: '1' },
            { key: 'bulk.two', value: '2', group_id: 'no-such-group' },
            { key: 'bulk.one', value: 'again' },
          ],
        },
        admin,
      )
      .catch((e) => e);
    expect(error).toMatchObject({
      code: 'validation_failed',
      details: [
        { index: 1, key: 'bulk.two', message: expect.stringContaining('no-such-group') },
        { index: 2, key: 'bulk.one', message: 'duplicate of item 0' },
      ],
    });
    expect(await sqlRows(env, "SELECT key FROM settings.settings WHERE key LIKE 'bulk.%'")).toEqual([]);

    const ok = await client.request(
      s.bulkSettings,
      {
        settings: [
          { key: 'bulk.one', value: '1', group_id: 'global' },
          { key: 'smtp.host', value: 'mail.example.org' },
          { key: 'bulk.secret', value: 'hidden', encrypted: true },
        ],
      },
      admin,
    );
    expect(ok).toMatchObject({ created: 2, updated: 1 });
    expect(ok.settings.find((x) => x.key === 'bulk.secret')?.value).toBeNull();
    expect((await client.request(s.getSetting, { key: 'smtp.host' }, admin)).value).toBe('mail.example.org');
  });
});

describe('search by key pattern', () => {
  const smtpKeys = [
    'smtp.from_email',
    'smtp.from_name',
    'smtp.host',
    'smtp.password',
    'smtp.port',
    'smtp.secure',
    'smtp.username',
  ];

  /** The keys a search finds. */
  const found = async (pattern: string) =>
    (await client.request(s.searchSettings, { pattern }, admin)).map((x) => x.key);

  it('matches * and ? and treats SQL wildcards literally', async () => {
    expect(await found('smtp.*')).toEqual(smtpKeys);
    expect(await found('smtp.hos?')).toEqual(['smtp.host']);
    // `_` is literal: it does not match the "." of every key as SQL LIKE would.
    expect(await found('smtp_host')).toEqual([]);
  });

  it('finds the keys containing a pattern without wildcards, as a search box does', async () => {
    expect(await found('smtp')).toEqual(smtpKeys);
    expect(await found('swagger')).toEqual(['global.enable_swagger_docs']);
    // A dot is literal in a plain pattern too.
    expect(await found('smtp.hostx')).toEqual([]);
  });

  it.each(['smtp.%', "x' OR '1'='1", 'a;drop table settings', ''])('refuses the pattern %j', async (pattern) => {
    await expect(client.request(s.searchSettings, { pattern }, admin)).rejects.toMatchObject({
      code: 'validation_failed',
    });
  });
});

describe('failure paths', () => {
  it.each([
    ['an unknown key', () => client.request(s.getSetting, { key: 'no.such.key' }, admin), 'not_found'],
    ['an unknown group', () => client.request(s.getGroup, { group_id: 'nope' }, admin), 'not_found'],
    [
      'the settings of an unknown group',
      () => client.request(s.listGroupSettings, { group_id: 'nope' }, admin),
      'not_found',
    ],
    [
      'a setting in an unknown group',
      () => client.request(s.createSetting, { key: 'x.y', value: '1', group_id: 'nope' }, admin),
      'not_found',
    ],
    ['a duplicate key', () => client.request(s.createSetting, { key: 'smtp.host', value: '1' }, admin), 'conflict'],
    ['a duplicate group', () => client.request(s.createGroup, { id: 'smtp', name: 'x' }, admin), 'conflict'],
    [
      'updating an unknown key',
      () => client.request(s.updateSetting, { key: 'no.such', changes: { value: '1' } }, admin),
      'not_found',
    ],
    ['deleting an unknown key', () => client.request(s.deleteSetting, { key: 'no.such' }, admin), 'not_found'],
    ['a missing value', () => client.request(s.createSetting, { key: 'x.y' } as never, admin), 'validation_failed'],
    [
      'a value of the wrong type',
      () => client.request(s.createSetting, { key: 'x.y', value: { nested: 5 } } as never, admin),
      'validation_failed',
    ],
    [
      'a key with capitals',
      () => client.request(s.createSetting, { key: 'Smtp.Host', value: '1' }, admin),
      'validation_failed',
    ],
    [
      'an empty update',
      () => client.request(s.updateSetting, { key: 'smtp.host', changes: {} }, admin),
      'validation_failed',
    ],
    ['a non-admin user', () => client.request(s.listSettings, {}, { identity: userIdentity }), 'forbidden'],
    [
      'a non-admin write',
      () => client.request(s.createSetting, { key: 'x.y', value: '1' }, { identity: userIdentity }),
      'forbidden',
    ],
    ['no identity', () => client.request(s.listSettings, {}, { identity: { kind: 'anonymous' } }), 'unauthenticated'],
  ])('refuses %s', async (_name, call, code) => {
    await expect(call()).rejects.toMatchObject({ code });
  });
});
