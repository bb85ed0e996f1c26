import { stackForFile } from '@orbital/testing/stackForFile';
import { describe, expect, it, vi } from 'vitest';
import { crashedEvent } from './eventFixtures.ts';
import { activate, call, type Registered, registerSatellite, startSatelliteStack } from './satelliteHarness.ts';

/**
 * A satellite key is verified with Argon2 once per gateway replica, then known by its key id: the
 * satellite's events keep flowing while PostgreSQL is unreachable, and a key revoked without the
 * broadcast reaching the gateway is still found out, by the periodic confirmation.
 */
const confirmAfterMs = 300;
const stack = stackForFile(() =>
  startSatelliteStack({ registryDatabaseProxy: true, keyConfirmAfterMs: confirmAfterMs }),
);

const sendEvents = (satellite: Registered, teamId = 'team-known') =>
  call(stack, satellite, 'POST', `${satellite.id}/events`, { events: [crashedEvent(teamId)] });

describe('known satellite keys', () => {
  it('keep event intake going while PostgreSQL is unreachable, past their confirmation time', async () => {
    const known = await registerSatellite(stack, { scope: 'team', team_id: 'team-known' }, 'known');
    const unseen = await registerSatellite(stack, { scope: 'team', team_id: 'team-known' }, 'unseen');
    await activate(stack, known);
    expect((await sendEvents(known)).statusCode).toBe(200);

    const proxy = stack.registryDatabase;
    if (!proxy) throw new Error('the stack has no database proxy');
    proxy.cut();
    try {
      // Past the confirmation time: the confirmation fails (the registry has no database) and the key
      // keeps serving, with no Argon2 run and no lookup in the request's way.
      await new Promise((resolve) => setTimeout(resolve, confirmAfterMs + 50));
      for (let i = 0; i < 3; i++) {
        const response = await sendEvents(known);
        expect(response.statusCode).toBe(200);
        expect(response.json().data).toMatchObject({ accepted: 1, rejected: 0 });
      }
      // A key this replica has not seen cannot be verified now: an outage, never "invalid key" (a 401
      // would make the satellite register again).
      const first = await sendEvents(unseen);
      expect(first.statusCode).toBe(503);
      expect(first.json()).toMatchObject({ error: { code: 'unavailable' } });
    } finally {
      proxy.restore();
    }
    expect((await sendEvents(unseen)).statusCode).toBe(200);
  });

  it('are dropped once a confirmation finds the satellite revoked, even without the broadcast', async () => {
    const satellite = await registerSatellite(stack, { scope: 'team', team_id: 'team-known' }, 'silently-revoked');
    await activate(stack, satellite);
    expect((await sendEvents(satellite)).statusCode).toBe(200);
    // Revoked in the database behind the registry's back: no broadcast reaches the gateway.
    await stack.db.query("UPDATE satellites SET status = 'revoked' WHERE id = $1", [satellite.id]);
    await vi.waitFor(
      async () => {
        expect((await sendEvents(satellite)).statusCode).toBe(401);
      },
      { timeout: 5000, interval: 100 },
    );
  });

  it('refuse another secret under a known key id', async () => {
    const satellite = await registerSatellite(stack, { scope: 'team', team_id: 'team-known' }, 'other-secret');
    expect((await sendEvents(satellite)).statusCode).toBe(200);
    const [keyId, secret] = satellite.apiKey.split('.') as [string, string];
    const forged = `${keyId}.${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`;
    const response = await call(
      stack,
      satellite,
      'POST',
      `${satellite.id}/events`,
      { events: [crashedEvent()] },
      {
        apiKey: forged,
      },
    );
    expect(response.statusCode).toBe(401);
    expect((await sendEvents(satellite)).statusCode).toBe(200);
  });
});
