import type { Bus } from '@orbital/bus';
import { identitySatelliteOfflineNoticeSubject } from '@orbital/contracts';
import type { LivePool } from '@orbital/db';
import type { Logger } from '@orbital/logger';
import type { SettingsReader } from '@orbital/settings-client';
import type { IdentityStore } from '../identity/identityStore.ts';
import type { MailSender } from './createMailSender.ts';
import { queueMail } from './mailOutbox.ts';

/** A notice still unsent a day later describes an outage long over or long known: it is dropped. */
const noticeLifetimeMs = 24 * 3600 * 1000;

/**
 * Serves the registry's "a satellite went offline" request: one mail to every enabled global admin,
 * queued in one transaction and sent by the outbox like every other mail (so an SMTP outage delays it,
 * never loses it). Each mail's key is the outage (satellite and last heartbeat) and the admin, so the
 * registry asking twice for one outage queues nothing more. While `global.send_mail` is off nothing is
 * queued: a notice that waited for mail to be turned on would arrive about an outage long over.
 */
export function serveSatelliteOfflineNotice(deps: {
  bus: Bus;
  pool: LivePool;
  store: IdentityStore;
  settings: SettingsReader;
  mail: MailSender;
  logger: Logger;
}): void {
  const { store } = deps;
  deps.bus.serve(identitySatelliteOfflineNoticeSubject, async (notice) => {
    if (!((await deps.settings.boolean('global.send_mail', false)) ?? false))
      return { mail: 'off' as const, queued: 0 };
    // The team's name reads better than its id; an id identity does not know (any more) is shown as it is.
    const team = notice.team_id ? await store.getTeam(notice.team_id).catch(() => null) : null;
    const params = {
      satellite: notice.name,
      satellite_id: notice.satellite_id,
      scope: notice.satellite_type,
      team: team?.name ?? notice.team_id ?? '',
      last_heartbeat_at: notice.last_heartbeat_at,
    };
    const queued = await deps.pool.get().transaction(async (tx) => {
      let count = 0;
      for (const admin of await store.activeGlobalAdminAddresses(tx)) {
        const id = await queueMail(tx, {
          kind: 'satellite_offline',
          recipient: admin.email,
          params,
          expiresInMs: noticeLifetimeMs,
          onceKey: `satellite_offline:${notice.satellite_id}:${notice.last_heartbeat_at}:${admin.id}`,
        });
        if (id) count++;
      }
      return count;
    });
    if (queued > 0) {
      deps.logger.info(
        { event: 'mail.satellite_offline', satellite_id: notice.satellite_id, recipients: queued },
        'satellite offline: global admins will be told by mail',
      );
      deps.mail.wake();
    }
    return { mail: 'queued' as const, queued };
  });
}
