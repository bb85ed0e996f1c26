import { registrySubjects, settingsChangedEvent } from '@orbital/contracts';
import { spawn } from '@orbital/satellite-registry/testing';
import { stackForFile } from '@orbital/testing/stackForFile';
import { describe, expect, it } from 'vitest';
import {
  activate,
  call,
  heartbeatBody,
  platform,
  poll,
  queueCommand,
  type Registered,
  registerSatellite,
  startSatelliteStack,
} from './satelliteHarness.ts';

/**
 * The satellite command routes over HTTP: status codes, error envelopes and held polls. What the queue
 * itself does (order, leases, retries, expiry, team isolation) is tested in the registry's own folder.
 */
const stack = stackForFile(() => startSatelliteStack());

async function commandStatus(id: string) {
  return stack.adminBus.request(registrySubjects.getCommand, { command_id: id }, { identity: platform });
}

async function report(satellite: Registered, commandId: string, status: string, extra: object = {}) {
  return call(stack, satellite, 'POST', `${satellite.id}/command-results`, { command_id: commandId, status, ...extra });
}

describe('heartbeats', () => {
  it('answer 400 for metrics out of range', async () => {
    const sat = await registerSatellite(stack, { scope: 'global' }, 'hb-bad');
    const body = heartbeatBody();
    const response = await call(stack, sat, 'POST', `${sat.id}/heartbeat`, {
      ...body,
      system: { ...body.system, cpu_percent: 250 },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ error: { code: 'validation_failed' } });
  });
});

describe('command results', () => {
  it('refuses a command id that is not one, naming the field', async () => {
    const sat = await registerSatellite(stack, { scope: 'global' }, 'results-bad-id');
    for (const commandId of ['not-a-uuid', 'inst-1; DROP TABLE commands', '']) {
      const response = await report(sat, commandId, 'acknowledged');
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({
        success: false,
        error: { code: 'validation_failed', details: [expect.objectContaining({ path: 'body.command_id' })] },
      });
    }
  });

  it('answer a repeat with changed: false and a contradiction with 409 and instructions', async () => {
    const sat = await registerSatellite(stack, { scope: 'global' }, 'results');
    await activate(stack, sat);
    const { commands } = await queueCommand(stack, { ...spawn('team-a'), satellite_id: sat.id });
    const id = commands[0]?.id ?? '';
    await poll(stack, sat);
    const done = await report(sat, id, 'completed');
    expect(done.statusCode).toBe(200);
    expect(done.json().data).toEqual({ command_id: id, status: 'completed', changed: true });
    expect((await report(sat, id, 'completed')).json().data.changed).toBe(false);
    const contradiction = await report(sat, id, 'failed', { error_message: 'boom' });
    expect(contradiction.statusCode).toBe(409);
    expect(contradiction.json()).toMatchObject({ error: { code: 'conflict', instructions: expect.any(String) } });
  });

  it("are refused for another satellite's command, unknown commands and bad statuses", async () => {
    const owner = await registerSatellite(stack, { scope: 'global' }, 'owner');
    const other = await registerSatellite(stack, { scope: 'global' }, 'other');
    const { commands } = await queueCommand(stack, { ...spawn('team-a'), satellite_id: owner.id });
    const id = commands[0]?.id ?? '';
    expect((await report(other, id, 'completed')).statusCode).toBe(404);
    expect((await report(other, '5a0c0b1e-0000-4000-8000-000000000000', 'completed')).statusCode).toBe(404);
    expect((await report(owner, id, 'done')).statusCode).toBe(400);
    expect(await commandStatus(id)).toMatchObject({ status: 'pending' });
  });
});

describe('long polling', () => {
  const heldPoll = (satellite: Registered, waitMs: number) =>
    call(stack, satellite, 'GET', `${satellite.id}/commands?wait_ms=${waitMs}`);
  /** Whether a request is still unanswered once everything already under way has had its turn. */
  const stillHeld = async (request: Promise<unknown>) =>
    Promise.race([request.then(() => false), new Promise<boolean>((resolve) => setTimeout(() => resolve(true), 300))]);

  it('holds a poll until a command for the satellite is created, then answers it without waiting for the end', async () => {
    const sat = await registerSatellite(stack, { scope: 'team', team_id: 'team-long' }, 'long');
    const other = await registerSatellite(stack, { scope: 'team', team_id: 'team-other-long' }, 'long-other');
    await activate(stack, sat);
    await activate(stack, other);
    // Longer than this test may run: an answer with the command can only come from being woken.
    const held = heldPoll(sat, 30000);
    expect(await stillHeld(held)).toBe(true);
    // A command for another satellite does not answer this poll.
    await queueCommand(stack, { satellite_id: other.id, priority: 'normal', ...spawn('team-other-long') });
    expect(await stillHeld(held)).toBe(true);
    // The registry creates it (as it would for any gateway replica's request) and publishes the event.
    const created = await queueCommand(stack, { satellite_id: sat.id, priority: 'normal', ...spawn('team-long') });
    const answer = (await held).json().data;
    expect(answer.commands.map((c: { id: string }) => c.id)).toEqual([created.commands[0]?.id]);
    expect(answer.long_poll_ms).toBe(30000);
  }, 20000);

  it('answers at once when a command is already waiting, and without wait_ms as before', async () => {
    const sat = await registerSatellite(stack, { scope: 'team', team_id: 'team-ready' }, 'ready');
    await activate(stack, sat);
    await queueCommand(stack, { satellite_id: sat.id, priority: 'normal', ...spawn('team-ready') });
    const answer = (await heldPoll(sat, 30000)).json().data;
    expect(answer.commands).toHaveLength(1);
    const plain = (await call(stack, sat, 'GET', `${sat.id}/commands`)).json().data;
    expect(plain.commands).toEqual([]);
    expect(plain.long_poll_ms).toBeUndefined();
    expect((await call(stack, sat, 'GET', `${sat.id}/commands?wait_ms=60000`)).statusCode).toBe(400);
  });

  it('wakes every held poll when platform settings change, saying when they changed', async () => {
    const sat = await registerSatellite(stack, { scope: 'global' }, 'settings-long');
    await activate(stack, sat);
    const held = heldPoll(sat, 30000);
    expect(await stillHeld(held)).toBe(true);
    const changedAt = new Date().toISOString();
    // What the settings service publishes on every change (here without its stream: gateways hear the subject).
    stack.adminBus.connection.publish(
      stack.adminBus.subject(settingsChangedEvent.subject),
      JSON.stringify({ keys: ['global.enable_swagger_docs'], action: 'updated', changed_at: changedAt }),
    );
    const answer = (await held).json().data;
    expect(answer).toMatchObject({ commands: [], settings_changed_at: changedAt });
    // Later answers keep saying it, so a satellite that was busy when it happened still learns of it.
    expect((await call(stack, sat, 'GET', `${sat.id}/commands`)).json().data.settings_changed_at).toBe(changedAt);
  }, 20000);
});
