import { connect, type NatsConnection, headers as natsHeaders } from '@nats-io/transport-node';
import type { Bus } from '@orbital/bus';
import { headerNames, settingsSubjects as s } from '@orbital/contracts';
import { createTestEnvironment, markDatabaseSetUp, type TestEnvironment } from '@orbital/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminIdentity, clientBus, type Replica, serviceCaller, startReplica } from './settingsHarness.ts';

/**
 * The hole this closes: a client that reached NATS wrote a service identity into the header and read
 * decrypted settings. Against the real settings service, on its real database.
 */
let env: TestEnvironment;
let replica: Replica;
let client: Bus;
let raw: NatsConnection;

beforeAll(async () => {
  env = await createTestEnvironment();
  await markDatabaseSetUp(env);
  replica = await startReplica(env);
  client = await clientBus(env);
  raw = await connect({ servers: env.natsUrl, noAsyncTraces: true });
  await client.request(
    s.updateSetting,
    { key: 'smtp.password', changes: { value: 'the-real-smtp-password' } },
    { identity: adminIdentity },
  );
});

afterAll(async () => {
  await raw?.close();
  await client?.drain();
  await replica?.stop();
  await env?.cleanup();
});

async function rawRequest(subject: string, body: unknown, identityHeader?: string) {
  const hdrs = natsHeaders();
  if (identityHeader !== undefined) hdrs.set(headerNames.identity, identityHeader);
  const reply = await raw.request(`${env.subjectPrefix}.${subject}`, JSON.stringify(body), {
    timeout: 3000,
    headers: hdrs,
  });
  return reply.string();
}

describe('the settings service and callers it cannot trust', () => {
  it('gives a decrypted secret to a platform service whose identity is signed', async () => {
    expect(await client.request(s.getValues, { keys: ['smtp.password'] }, { identity: serviceCaller })).toMatchObject({
      values: { 'smtp.password': 'the-real-smtp-password' },
    });
  });

  it('gives nothing to a client that writes a service or admin identity into the header itself', async () => {
    for (const forged of [JSON.stringify(serviceCaller), JSON.stringify(adminIdentity), undefined]) {
      const answer = await rawRequest(s.getValues.subject, { keys: ['smtp.password'] }, forged);
      expect(JSON.parse(answer)).toMatchObject({ ok: false, error: { code: 'unauthenticated' } });
      expect(answer).not.toContain('the-real-smtp-password');
      const list = await rawRequest(s.listGroups.subject, {}, forged);
      expect(JSON.parse(list)).toMatchObject({ ok: false, error: { code: 'unauthenticated' } });
    }
  });
});
