import { identitySatelliteOfflineNoticeSubject, serviceIdentity, settingsSubjects } from '@orbital/contracts';
import { type MailServer, startMailServer } from '@orbital/testing';
import { stackForFile } from '@orbital/testing/stackForFile';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  activate,
  adminCredentials,
  globalAdmin,
  type Registered,
  registerSatellite,
  startSatelliteStack,
} from './satelliteHarness.ts';

/**
 * The notice to global admins when a satellite goes offline: the registry's offline watch (looked at by
 * hand here, its own timer an hour apart, the registry's clock moved instead of waiting), identity's
 * mail to every enabled global admin, through a real SMTP server, once per outage.
 */
const stack = stackForFile(() => startSatelliteStack({ settings: true, registryEnv: { OFFLINE_CHECK_MS: '3600000' } }));
let smtp: MailServer;
const pageUrl = 'https://console.orbital.test';
// Offline 75 s after the last heartbeat at the default 30 s interval.
const pastOffline = 80_000;

const setSetting = (key: string, value: string) =>
  stack.adminBus.request(settingsSubjects.updateSetting, { key, changes: { value } }, { identity: globalAdmin });

async function noticesQueuedFor(satellite: Registered): Promise<Array<{ recipient: string }>> {
  const { rows } = await stack.db.query(
    `SELECT recipient FROM identity.mail_outbox WHERE kind = 'satellite_offline' AND params->>'satellite_id' = $1
     ORDER BY recipient`,
    [satellite.id],
  );
  return rows;
}

beforeAll(async () => {
  smtp = await startMailServer();
  // Besides the first admin (root): one more admin, a disabled admin and a plain user.
  await stack.db.query(`
    INSERT INTO identity.users (email, name, password_hash, global_role, disabled_at) VALUES
      ('second@orbital.test', 'Second', 'x', 'global_admin', NULL),
      ('disabled@orbital.test', 'Disabled', 'x', 'global_admin', now()),
      ('user@orbital.test', 'User', 'x', 'global_user', NULL)`);
  await setSetting('smtp.host', '127.0.0.1');
  await setSetting('smtp.port', String(smtp.port));
  await setSetting('smtp.secure', 'false');
  await setSetting('smtp.from_email', 'orbital@orbital.test');
  await setSetting('global.page_url', pageUrl);
});
afterAll(async () => {
  await smtp?.close();
});

describe('a satellite going offline', () => {
  it('is told to nobody while global.send_mail is off, and not later when it is turned on', async () => {
    await setSetting('global.send_mail', 'false');
    const quiet = await registerSatellite(stack, { scope: 'global' }, 'quiet-sat');
    await activate(stack, quiet);
    stack.clock.advance(pastOffline);
    expect(await stack.registry.offlineWatch.check()).toEqual({ noticed: 1, failed: 0 });
    await setSetting('global.send_mail', 'true');
    expect(await stack.registry.offlineWatch.check()).toEqual({ noticed: 0, failed: 0 });
    expect(await noticesQueuedFor(quiet)).toEqual([]);
  });

  it('mails every enabled global admin once per outage, with a link to its page under global.page_url', async () => {
    await setSetting('global.send_mail', 'true');
    const made = await stack.gateway.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: adminCredentials.email, password: adminCredentials.password },
    });
    const team = await stack.gateway.inject({
      method: 'POST',
      url: '/api/teams',
      headers: { authorization: `Bearer ${made.json().data.token}` },
      payload: { slug: 'edge-team', name: 'Edge Team' },
    });
    expect(team.statusCode, team.body).toBe(201);
    const sat = await registerSatellite(stack, { scope: 'team', team_id: team.json().data.id }, 'edge-sat');
    await activate(stack, sat);
    // Online still: nothing to tell.
    stack.clock.advance(60_000);
    expect(await stack.registry.offlineWatch.check()).toEqual({ noticed: 0, failed: 0 });

    stack.clock.advance(pastOffline);
    expect(await stack.registry.offlineWatch.check()).toEqual({ noticed: 1, failed: 0 });
    const [toRoot] = await smtp.waitFor(adminCredentials.email);
    const [toSecond] = await smtp.waitFor('second@orbital.test');
    for (const mail of [toRoot, toSecond]) {
      expect(mail?.subject).toContain('Satellite edge-sat is offline');
      expect(mail?.text).toContain('the satellite of the team "Edge Team"');
      expect(mail?.text).toContain(`${pageUrl}/satellites/${sat.id}`);
    }

    // Later looks at the same outage tell nobody again.
    stack.clock.advance(60_000);
    expect(await stack.registry.offlineWatch.check()).toEqual({ noticed: 0, failed: 0 });
    expect(await stack.registry.offlineWatch.check()).toEqual({ noticed: 0, failed: 0 });
    expect(await noticesQueuedFor(sat)).toEqual([
      { recipient: adminCredentials.email },
      { recipient: 'second@orbital.test' },
    ]);
    expect(smtp.to('disabled@orbital.test')).toEqual([]);
    expect(smtp.to('user@orbital.test')).toEqual([]);

    // Back, then gone again: a new outage, a new notice.
    await activate(stack, sat);
    stack.clock.advance(pastOffline);
    expect(await stack.registry.offlineWatch.check()).toEqual({ noticed: 1, failed: 0 });
    await smtp.waitFor(adminCredentials.email, 2);
    expect(await noticesQueuedFor(sat)).toHaveLength(4);
  });

  it('queues nothing more when identity is asked twice about one outage (a retry, a second registry replica)', async () => {
    const notice = {
      satellite_id: '5b7e6f1e-2f4c-4a55-9d7e-0a4b1f2c3d4e',
      name: 'asked-twice',
      satellite_type: 'global' as const,
      team_id: null,
      last_heartbeat_at: new Date().toISOString(),
    };
    const identity = serviceIdentity('satellite-registry');
    const first = await stack.adminBus.request(identitySatelliteOfflineNoticeSubject, notice, { identity });
    const again = await stack.adminBus.request(identitySatelliteOfflineNoticeSubject, notice, { identity });
    expect(first).toEqual({ mail: 'queued', queued: 2 });
    expect(again).toEqual({ mail: 'queued', queued: 0 });
  });

  it('is not forgotten while gateway-api is down: told once it answers again', async () => {
    const sat = await registerSatellite(stack, { scope: 'global' }, 'outage-sat');
    await activate(stack, sat);
    await stack.firstReplica.stop();
    stack.clock.advance(pastOffline);
    expect(await stack.registry.offlineWatch.check()).toEqual({ noticed: 0, failed: 1 });
    await stack.startReplica();
    expect(await stack.registry.offlineWatch.check()).toEqual({ noticed: 1, failed: 0 });
    // Two notices of edge-sat's outages and the one asked twice came before.
    const mails = await smtp.waitFor('second@orbital.test', 4);
    expect(mails.some((mail) => mail.subject.includes('Satellite outage-sat is offline'))).toBe(true);
  });
});
