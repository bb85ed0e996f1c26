import { connect, type NatsConnection, nkeyAuthenticator } from '@nats-io/transport-node';
import {
  contractsOf,
  type ProcessName,
  processNames,
  requestersOf,
  servedBy,
  settingsSubjects,
  subjectCatalogue,
} from '@orbital/contracts';
import { createLogger } from '@orbital/logger';
import { type PlatformNats, startPlatformNats, testIdentityKeys } from '@orbital/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBus, ensureStream, generateNatsUser, inboxPrefixOf, natsPermissionsOf } from '../src/index.ts';

/**
 * The NATS server as the platform runs it: every process with its own NKey and the permissions the
 * contract catalogue derives for it, nobody else. Real server (nats-server), real connections.
 */
let nats: PlatformNats;
const connections: NatsConnection[] = [];

async function connectAs(process: ProcessName): Promise<NatsConnection> {
  const connection = await connect({
    servers: nats.url,
    authenticator: nkeyAuthenticator(new TextEncoder().encode(nats.seeds[process])),
    inboxPrefix: inboxPrefixOf(process),
    noAsyncTraces: true,
  });
  connections.push(connection);
  return connection;
}

/** Resolves with the server's refusal of a subscription, or with null when it stood for a while. */
async function subscriptionRefusal(connection: NatsConnection, subject: string): Promise<string | null> {
  const refused = new Promise<string>((resolve) => {
    connection.subscribe(subject, {
      callback: (error) => {
        if (error) resolve(error.message);
      },
    });
  });
  await connection.flush();
  const stood = new Promise<null>((resolve) => setTimeout(() => resolve(null), 300));
  return Promise.race([refused, stood]);
}

/** A bus of `process` on the authenticated server, as the process itself connects. */
const busOf = (process: ProcessName, options: { streamMaxBytes?: number } = {}) =>
  createBus({
    servers: nats.url,
    name: process,
    prefix: 'orb',
    logger: createLogger({ name: 'auth-test', level: 'silent' }),
    identity: testIdentityKeys().of(process),
    credentials: { process, nkeySeed: nats.seeds[process] },
    ...options,
  });

beforeAll(async () => {
  nats = await startPlatformNats({ prefix: 'orb' });
});

afterAll(async () => {
  for (const connection of connections) await connection.close().catch(() => undefined);
  await nats?.server.stop();
});

describe('NATS with the generated permissions', () => {
  it('refuses a client without credentials, and one with a key it does not know', async () => {
    await expect(connect({ servers: nats.url, reconnect: false })).rejects.toThrow(/authorization/i);
    const stranger = new TextEncoder().encode(generateNatsUser().seed);
    await expect(
      connect({ servers: nats.url, reconnect: false, authenticator: nkeyAuthenticator(stranger) }),
    ).rejects.toThrow(/authorization/i);
  });

  it('lets every requester of every subject reach the process serving it, and get its answer', async () => {
    const byProcess = new Map<ProcessName, NatsConnection>();
    for (const process of processNames) byProcess.set(process, await connectAs(process));
    for (const def of subjectCatalogue) {
      const server = byProcess.get(servedBy(def)) as NatsConnection;
      const subscription = server.subscribe(`orb.${def.subject}`, {
        queue: def.service,
        callback: (_error, msg) => {
          msg.respond('ok');
        },
      });
      await server.flush();
      for (const requester of requestersOf(def.access)) {
        const client = byProcess.get(requester) as NatsConnection;
        const reply = await client.request(`orb.${def.subject}`, '{}', { timeout: 2000 });
        expect(reply.string(), `${requester} -> ${def.subject}`).toBe('ok');
      }
      subscription.unsubscribe();
    }
  });

  it("refuses a process serving another's subject, requesting outside its contracts, or reading others' traffic", async () => {
    const jobs = await connectAs('jobs');
    // Serving the settings subjects (and so reading decrypted secrets' requests): only settings may.
    expect(await subscriptionRefusal(jobs, `orb.${settingsSubjects.getValues.subject}`)).toMatch(/permissions/i);
    // Another process's replies, every event, everything.
    expect(await subscriptionRefusal(jobs, `${inboxPrefixOf('gateway-api')}.>`)).toMatch(/permissions/i);
    expect(await subscriptionRefusal(jobs, '_INBOX.>')).toMatch(/permissions/i);
    expect(await subscriptionRefusal(jobs, 'orb.evt.>')).toMatch(/permissions/i);
    expect(await subscriptionRefusal(jobs, '>')).toMatch(/permissions/i);

    // A request jobs has no contract for never reaches the settings service.
    const settings = await connectAs('settings');
    let reached = 0;
    settings.subscribe(`orb.${settingsSubjects.getValues.subject}`, {
      queue: 'settings',
      callback: (_error, msg) => {
        reached += 1;
        msg.respond('{}');
      },
    });
    await settings.flush();
    await expect(jobs.request(`orb.${settingsSubjects.getValues.subject}`, '{}', { timeout: 1000 })).rejects.toThrow();
    const gateway = await connectAs('gateway-api');
    // gateway-api may ask for settings values (it reads them for itself): the subject works.
    await expect(
      gateway.request(`orb.${settingsSubjects.getValues.subject}`, '{}', { timeout: 2000 }),
    ).resolves.toBeDefined();
    expect(reached).toBe(1);

    // gateway-api cannot answer as the settings service either.
    expect(await subscriptionRefusal(gateway, `orb.${settingsSubjects.getValues.subject}`)).toMatch(/permissions/i);
  });

  it("lets an owner manage its streams and nobody else's; the permissions name only the catalogue's subjects", async () => {
    const settings = await busOf('settings', { streamMaxBytes: 1024 * 1024 });
    const jobs = await busOf('jobs', { streamMaxBytes: 1024 * 1024 });
    try {
      for (const stream of contractsOf('settings').owns) await ensureStream(settings, stream);
      const [stream] = contractsOf('settings').owns;
      if (!stream) throw new Error('settings owns a stream');
      await expect(ensureStream(jobs, stream)).rejects.toThrow();
    } finally {
      await settings.drain();
      await jobs.drain();
    }
    const jobsPermissions = natsPermissionsOf('jobs', { prefix: 'orb' });
    expect(jobsPermissions.publish.allow.filter((s) => s.startsWith('$JS'))).toEqual([]);
    expect(jobsPermissions.subscribe.allow).toEqual([`${inboxPrefixOf('jobs')}.>`, 'orb.jobs.status.get']);
  });
  it('fails a bus request the server refuses to carry at once, not at its timeout', async () => {
    const [settings, jobs] = await Promise.all([busOf('settings'), busOf('jobs')]);
    try {
      settings.serve(settingsSubjects.getValues, async () => ({ values: {} }) as never);
      await settings.flush();
      // jobs has no contract for the settings values: its request never leaves the server.
      const refused = await jobs
        .request(settingsSubjects.getValues, { group_id: 'global' } as never, {
          identity: { kind: 'service', service: 'jobs' },
          timeoutMs: 600_000,
        })
        .catch((error: unknown) => error);
      expect(refused).toMatchObject({ code: 'unavailable', details: { reason: 'bus_error' } });
      expect(String((refused as Error).message)).toMatch(/bus is unavailable/);
    } finally {
      await settings.drain();
      await jobs.drain();
    }
  });
});
