import { registrySubjects } from '@orbital/contracts';
import { stackForFile } from '@orbital/testing/stackForFile';
import type { FastifyInstance } from 'fastify';
import { describe, expect, it, vi } from 'vitest';
import {
  type GatewayReplica,
  type Registered,
  registerSatellite,
  startSatelliteStack,
  teamMember,
} from './satelliteHarness.ts';

/**
 * A gateway-api restarted (or a new replica) in front of satellites it has never seen: a key verified once
 * anywhere is known by its digest, so no Argon2 runs; a key from before digests costs one Argon2 run in
 * all, after which every replica knows it; Argon2 beyond a few at a time is answered 503 with
 * Retry-After, never 401; revocation still reaches every replica at once.
 */
const stack = stackForFile(() => startSatelliteStack());

const poll = (gateway: FastifyInstance, satellite: Registered) =>
  gateway.inject({
    method: 'GET',
    url: `/api/satellites/${satellite.id}/commands`,
    headers: { authorization: `Bearer ${satellite.apiKey}` },
  });

/** How many first sights of keys a replica checked each way, from its own /metrics counter. */
async function firstSights(replica: GatewayReplica): Promise<Record<string, number>> {
  const metric = await replica.metrics.registry.getSingleMetric('orbital_satellite_key_first_sights_total')?.get();
  return Object.fromEntries((metric?.values ?? []).map((value) => [String(value.labels.check), value.value]));
}

const keyIdOf = (satellite: Registered) => satellite.apiKey.split('.')[0] as string;

async function forgetDigest(satellite: Registered) {
  await stack.db.query('UPDATE satellites SET api_key_digest = NULL WHERE id = $1', [satellite.id]);
}

describe('a gateway restarted in front of its satellites', () => {
  it('knows every registered key at once by its digest, with no Argon2 run', async () => {
    const fleet: Registered[] = [];
    for (let i = 0; i < 12; i++) fleet.push(await registerSatellite(stack, { scope: 'global' }, `fleet-${i}`));
    for (const satellite of fleet) expect((await poll(stack.gateway, satellite)).statusCode).toBe(200);

    const restarted = await stack.startReplica();
    try {
      const answers = await Promise.all(fleet.map((satellite) => poll(restarted.app, satellite)));
      expect(answers.map((answer) => answer.statusCode)).toEqual(fleet.map(() => 200));
      expect(await firstSights(restarted)).toEqual({ digest: fleet.length });
    } finally {
      await restarted.stop();
    }
  });

  it('runs Argon2 once in all for a key from before digests, then every replica knows it', async () => {
    const satellite = await registerSatellite(stack, { scope: 'global' }, 'from-before-digests');
    await forgetDigest(satellite);
    const first = await stack.startReplica();
    const second = await stack.startReplica();
    try {
      const concurrent = await Promise.all([1, 2, 3].map(() => poll(first.app, satellite)));
      expect(concurrent.map((answer) => answer.statusCode)).toEqual([200, 200, 200]);
      expect(await firstSights(first)).toEqual({ argon2: 1 });
      // The digest reaches the registry beside the request, not in its way.
      await vi.waitFor(async () => {
        const { rows } = await stack.db.query('SELECT api_key_digest FROM satellites WHERE id = $1', [satellite.id]);
        expect(rows[0]?.api_key_digest).toMatch(/^sha256:/);
      });
      expect((await poll(second.app, satellite)).statusCode).toBe(200);
      expect(await firstSights(second)).toEqual({ digest: 1 });
    } finally {
      await first.stop();
      await second.stop();
    }
  });

  it('refuses a wrong secret under a key id with a digest, as before, with 401', async () => {
    const satellite = await registerSatellite(stack, { scope: 'global' }, 'wrong-secret');
    const secret = satellite.apiKey.split('.')[1] as string;
    const forged = {
      ...satellite,
      apiKey: `${keyIdOf(satellite)}.${secret.endsWith('A') ? 'B' : 'A'}${secret.slice(1)}`,
    };
    const restarted = await stack.startReplica();
    try {
      expect((await poll(restarted.app, forged)).statusCode).toBe(401);
      expect((await poll(restarted.app, satellite)).statusCode).toBe(200);
      expect(await firstSights(restarted)).toEqual({ invalid: 1, digest: 1 });
    } finally {
      await restarted.stop();
    }
  });

  it('answers 503 with Retry-After, never 401, when more unseen keys need Argon2 than its queue holds', async () => {
    const legacy: Registered[] = [];
    for (let i = 0; i < 5; i++) legacy.push(await registerSatellite(stack, { scope: 'global' }, `legacy-${i}`));
    for (const satellite of legacy) await forgetDigest(satellite);
    const busy = await stack.startReplica({ satelliteKeyArgon2: { concurrency: 1, maxWaiting: 0 } });
    try {
      const answers = await Promise.all(legacy.map((satellite) => poll(busy.app, satellite)));
      const statuses = answers.map((answer) => answer.statusCode);
      expect(statuses.filter((status) => status === 200).length).toBeGreaterThanOrEqual(1);
      expect(statuses.filter((status) => status !== 200 && status !== 503)).toEqual([]);
      const refused = answers.filter((answer) => answer.statusCode === 503);
      expect(refused.length).toBeGreaterThanOrEqual(1);
      for (const answer of refused) {
        expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(1);
        expect(answer.json()).toMatchObject({
          success: false,
          error: { code: 'unavailable', details: { reason: 'busy', retry_after_seconds: expect.any(Number) } },
        });
      }
      // Back one at a time, as told: every one is let in.
      for (const satellite of legacy) expect((await poll(busy.app, satellite)).statusCode).toBe(200);
      expect(await firstSights(busy)).toMatchObject({ argon2: legacy.length, busy: refused.length });
    } finally {
      await busy.stop();
    }
  });

  it('still drops a revoked key on every replica at once, and a restarted one refuses it too', async () => {
    const satellite = await registerSatellite(stack, { scope: 'team', team_id: 'team-restart' }, 'revoked');
    const other = await stack.startReplica();
    try {
      expect((await poll(stack.gateway, satellite)).statusCode).toBe(200);
      expect((await poll(other.app, satellite)).statusCode).toBe(200);
      await stack.adminBus.request(
        registrySubjects.revokeSatellite,
        { satellite_id: satellite.id },
        { identity: teamMember('team-restart', 'team_admin') },
      );
      await vi.waitFor(async () => {
        expect((await poll(stack.gateway, satellite)).statusCode).toBe(401);
        expect((await poll(other.app, satellite)).statusCode).toBe(401);
      });
    } finally {
      await other.stop();
    }
    const restarted = await stack.startReplica();
    try {
      expect((await poll(restarted.app, satellite)).statusCode).toBe(401);
    } finally {
      await restarted.stop();
    }
  });
});
