import { registrySubjects, settingsChangedEvent } from '@orbital/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  activate,
  call,
  globalAdmin,
  heartbeatBody,
  platform,
  poll,
  queueCommand,
  type Registered,
  registerSatellite,
  type SatelliteStack,
  startSatelliteStack,
  teamMember,
} from './satelliteHarness.ts';

const leaseMs = 30000;
const defaultExpiryMs = 600_000;
let stack: SatelliteStack;
beforeAll(async () => {
  stack = await startSatelliteStack({ leaseMs, defaultCommandExpiryMs: defaultExpiryMs });
});
afterAll(async () => {
  await stack?.stop();
});

const spawn = (teamId: string, installationId = 'inst-1') => ({
  command_type: 'spawn',
  payload: { team_id: teamId, installation_id: installationId },
});

async function commandStatus(id: string) {
  return stack.adminBus.request(registrySubjects.getCommand, { command_id: id }, { identity: platform });
}

async function report(satellite: Registered, commandId: string, status: string, extra: object = {}) {
  return call(stack, satellite, 'POST', `${satellite.id}/command-results`, { command_id: commandId, status, ...extra });
}

describe('heartbeats', () => {
  it('activate an inactive satellite, record its URL, and store system and process metrics', async () => {
    const sat = await registerSatellite(stack, { scope: 'team', team_id: 'team-hb' }, 'hb');
    const first = await call(stack, sat, 'POST', `${sat.id}/heartbeat`, {
      ...heartbeatBody(),
      satellite_url: 'https://hb.example.com',
    });
    expect(first.statusCode).toBe(200);
    expect(first.json().data).toEqual({ status: 'active', activated: true, next_heartbeat_ms: 30000 });
    stack.clock.advance(30000);
    const second = await call(stack, sat, 'POST', `${sat.id}/heartbeat`, heartbeatBody());
    expect(second.json().data).toMatchObject({ status: 'active', activated: false });

    const view = await stack.adminBus.request(
      registrySubjects.getSatellite,
      { satellite_id: sat.id },
      { identity: teamMember('team-hb', 'team_user') },
    );
    expect(view).toMatchObject({ status: 'active', satellite_url: 'https://hb.example.com', online: true });
    const metrics = await stack.adminBus.request(
      registrySubjects.getMetrics,
      { satellite_id: sat.id, query: { limit: 10 } },
      { identity: teamMember('team-hb', 'team_user') },
    );
    expect(metrics.heartbeats).toHaveLength(2);
    expect(metrics.heartbeats[0]).toMatchObject({ cpu_percent: 12.5, memory_used_mb: 512, process_running: 1 });
    expect(Date.parse(metrics.heartbeats[0]?.received_at ?? '')).toBeGreaterThan(
      Date.parse(metrics.heartbeats[1]?.received_at ?? ''),
    );
    expect(metrics.processes).toEqual([
      expect.objectContaining({ process_id: 'filesystem-alpha-inst-1', health: 'healthy', request_count: 7 }),
    ]);
  });

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

describe('command polling', () => {
  it('gives an inactive satellite an empty list, not an error, and its commands once active', async () => {
    const sat = await registerSatellite(stack, { scope: 'team', team_id: 'team-in' }, 'inactive');
    await queueCommand(stack, { ...spawn('team-in'), satellite_id: sat.id });
    const inactive = await poll(stack, sat);
    expect(inactive.commands).toEqual([]);
    expect(inactive.polling).toEqual({ mode: 'normal', next_poll_ms: 30000 });
    await activate(stack, sat);
    const active = await poll(stack, sat);
    expect(active.commands.map((c) => c.command_type)).toEqual(['spawn']);
  });

  it('returns commands by priority, then age, and asks for an immediate return while work remains', async () => {
    const sat = await registerSatellite(stack, { scope: 'global' }, 'prio');
    await activate(stack, sat);
    const ids: Record<string, string> = {};
    for (const priority of ['low', 'normal', 'high', 'immediate', 'normal']) {
      const { commands } = await queueCommand(stack, { ...spawn('team-a'), priority, satellite_id: sat.id });
      ids[`${priority}-${Object.keys(ids).length}`] = commands[0]?.id ?? '';
      stack.clock.advance(1000);
    }
    const first = await poll(stack, sat, 3);
    expect(first.commands.map((c) => c.priority)).toEqual(['immediate', 'high', 'normal']);
    expect(first.commands[2]?.id).toBe(ids['normal-1']);
    expect(first.polling).toEqual({ mode: 'immediate', next_poll_ms: 2000 });
    const second = await poll(stack, sat, 3);
    expect(second.commands.map((c) => c.id)).toEqual([ids['normal-4'], ids['low-0']]);
    expect(second.polling.mode).toBe('normal');
    const third = await poll(stack, sat);
    expect(third.commands).toEqual([]);
  });

  it('splits the queue between concurrent polls of one satellite, delivering each command once', async () => {
    const sat = await registerSatellite(stack, { scope: 'global' }, 'concurrent');
    await activate(stack, sat);
    const queued: string[] = [];
    for (let i = 0; i < 12; i++) {
      const { commands } = await queueCommand(stack, { ...spawn('team-a'), satellite_id: sat.id });
      queued.push(commands[0]?.id ?? '');
    }
    const polls = await Promise.all([1, 2, 3, 4].map(() => poll(stack, sat, 4)));
    const delivered = polls.flatMap((p) => p.commands.map((c) => c.id));
    expect(new Set(delivered).size).toBe(delivered.length);
    const rest = await poll(stack, sat, 20);
    expect([...delivered, ...rest.commands.map((c) => c.id)].sort()).toEqual([...queued].sort());
    // Exactly what was left fitted: nothing remains, so no immediate return is asked for.
    expect(rest.polling.mode).not.toBe('immediate');
  });

  it('tells the satellite to poll at the high rate after a high command and slowly when quiet', async () => {
    const sat = await registerSatellite(stack, { scope: 'global' }, 'modes');
    await activate(stack, sat);
    // New: quiet since registration, not yet ten minutes.
    expect((await poll(stack, sat)).polling).toEqual({ mode: 'normal', next_poll_ms: 30000 });
    stack.clock.advance(10 * 60000);
    expect((await poll(stack, sat)).polling).toEqual({ mode: 'slow', next_poll_ms: 60000 });
    await queueCommand(stack, { ...spawn('team-a'), priority: 'high', satellite_id: sat.id });
    const delivered = await poll(stack, sat);
    expect(delivered.polling).toEqual({ mode: 'high', next_poll_ms: 10000 });
    await report(sat, delivered.commands[0]?.id ?? '', 'completed');
    stack.clock.advance(9 * 60000);
    expect((await poll(stack, sat)).polling.mode).toBe('normal');
    stack.clock.advance(2 * 60000);
    expect((await poll(stack, sat)).polling.mode).toBe('slow');
  });

  it('returns an unacknowledged command to the queue when its lease runs out, until the retry limit', async () => {
    const sat = await registerSatellite(stack, { scope: 'global' }, 'lease');
    await activate(stack, sat);
    const { commands } = await queueCommand(stack, { ...spawn('team-a'), satellite_id: sat.id, max_attempts: 2 });
    const id = commands[0]?.id ?? '';
    expect((await poll(stack, sat)).commands.map((c) => c.id)).toEqual([id]);
    // Leased: not delivered again while the lease holds.
    expect((await poll(stack, sat)).commands).toEqual([]);
    stack.clock.advance(leaseMs + 1);
    expect((await poll(stack, sat)).commands.map((c) => c.id)).toEqual([id]);
    expect(await commandStatus(id)).toMatchObject({ status: 'leased', attempts: 2 });
    stack.clock.advance(leaseMs + 1);
    expect((await poll(stack, sat)).commands).toEqual([]);
    expect(await commandStatus(id)).toMatchObject({ status: 'failed', attempts: 2, error_message: expect.any(String) });
  });

  it('keeps an acknowledged command with its satellite after the lease time', async () => {
    const sat = await registerSatellite(stack, { scope: 'global' }, 'acked');
    await activate(stack, sat);
    const { commands } = await queueCommand(stack, { ...spawn('team-a'), satellite_id: sat.id });
    const id = commands[0]?.id ?? '';
    await poll(stack, sat);
    expect((await report(sat, id, 'acknowledged')).json().data).toEqual({
      command_id: id,
      status: 'acknowledged',
      changed: true,
    });
    stack.clock.advance(leaseMs * 3);
    expect((await poll(stack, sat)).commands).toEqual([]);
    expect(await commandStatus(id)).toMatchObject({ status: 'acknowledged', attempts: 1 });
  });

  it('drops a command that expires before delivery', async () => {
    const sat = await registerSatellite(stack, { scope: 'global' }, 'expiry');
    await activate(stack, sat);
    const { commands } = await queueCommand(stack, { ...spawn('team-a'), satellite_id: sat.id, expires_in_ms: 5000 });
    stack.clock.advance(5001);
    expect((await poll(stack, sat)).commands).toEqual([]);
    expect(await commandStatus(commands[0]?.id ?? '')).toMatchObject({ status: 'expired' });
  });

  it('gives a command without an expiry the default one, so a satellite that never starts collects no queue', async () => {
    const sat = await registerSatellite(stack, { scope: 'global' }, 'never-starts');
    const { commands } = await queueCommand(stack, { ...spawn('team-a'), satellite_id: sat.id });
    const first = await commandStatus(commands[0]?.id ?? '');
    expect(Date.parse(first.expires_at ?? '') - Date.parse(first.created_at)).toBe(defaultExpiryMs);
    stack.clock.advance(defaultExpiryMs + 1);
    // The satellite never polls; the next command for it retires the expired one.
    const { commands: later } = await queueCommand(stack, { ...spawn('team-a'), satellite_id: sat.id });
    expect(await commandStatus(commands[0]?.id ?? '')).toMatchObject({ status: 'expired' });
    expect(await commandStatus(later[0]?.id ?? '')).toMatchObject({ status: 'pending' });
  });

  it('refuses a payload that does not fit its command type', async () => {
    await expect(
      queueCommand(stack, { command_type: 'health_check', payload: { team_id: 'team-a' } }),
    ).rejects.toMatchObject({ code: 'validation_failed' });
    await expect(
      stack.adminBus.request(registrySubjects.createCommand, spawn('team-a') as never, {
        identity: teamMember('team-a', 'team_admin'),
      }),
    ).rejects.toMatchObject({ code: 'forbidden' });
  });
});

describe('team isolation of commands', () => {
  it("delivers a team's commands to its team satellites and global satellites, never to another team's", async () => {
    const a = await registerSatellite(stack, { scope: 'team', team_id: 'iso-a' }, 'iso-a');
    const b = await registerSatellite(stack, { scope: 'team', team_id: 'iso-b' }, 'iso-b');
    const global = await registerSatellite(stack, { scope: 'global' }, 'iso-global');
    for (const sat of [a, b, global]) await activate(stack, sat);
    await poll(stack, global); // drain what earlier tests queued for every global satellite

    const fanned = await queueCommand(stack, spawn('iso-b', 'inst-b'));
    expect(fanned.commands.map((c) => c.satellite_id).sort()).toContain(b.id);
    expect(fanned.commands.map((c) => c.satellite_id)).not.toContain(a.id);

    await expect(queueCommand(stack, { ...spawn('iso-b'), satellite_id: a.id })).rejects.toMatchObject({
      code: 'forbidden',
    });
    // Even a row queued wrongly (bypassing the service) never reaches a satellite of another team.
    await stack.db.query(
      `INSERT INTO satellite_commands (id, satellite_id, team_id, command_type, priority, priority_rank, payload,
         created_at, updated_at)
       VALUES (gen_random_uuid(), $1, 'iso-b', 'kill', 'immediate', 0, '{"team_id":"iso-b","installation_id":"x"}',
         now(), now())`,
      [a.id],
    );
    expect((await poll(stack, a)).commands).toEqual([]);
    expect((await poll(stack, b)).commands.map((c) => c.payload.team_id)).toEqual(['iso-b']);
    expect((await poll(stack, global)).commands.map((c) => c.payload.team_id)).toEqual(['iso-b']);
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

  it('are idempotent by command id: a repeat or a late earlier status changes nothing', async () => {
    const sat = await registerSatellite(stack, { scope: 'global' }, 'results');
    await activate(stack, sat);
    const { commands } = await queueCommand(stack, { ...spawn('team-a'), satellite_id: sat.id });
    const id = commands[0]?.id ?? '';
    await poll(stack, sat);
    expect((await report(sat, id, 'executing')).json().data.changed).toBe(true);
    const done = await report(sat, id, 'completed', { result: { tools: 3 } });
    expect(done.json().data).toEqual({ command_id: id, status: 'completed', changed: true });
    expect((await report(sat, id, 'completed', { result: { tools: 99 } })).json().data.changed).toBe(false);
    expect((await report(sat, id, 'acknowledged')).json().data.changed).toBe(false);
    expect(await commandStatus(id)).toMatchObject({ status: 'completed', result: { tools: 3 } });

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

describe('listing for the frontend', () => {
  it('shows a global admin every satellite and other users only their teams', async () => {
    const mine = await registerSatellite(stack, { scope: 'team', team_id: 'list-a' }, 'list-a');
    const theirs = await registerSatellite(stack, { scope: 'team', team_id: 'list-b' }, 'list-b');
    const all = await stack.adminBus.request(registrySubjects.listSatellites, {}, { identity: globalAdmin });
    expect(all.map((s) => s.id)).toEqual(expect.arrayContaining([mine.id, theirs.id]));
    const member = teamMember('list-a', 'team_user');
    const visible = await stack.adminBus.request(registrySubjects.listSatellites, {}, { identity: member });
    // Its team's satellites, and the global ones, which serve every team.
    expect(visible.filter((s) => s.satellite_type === 'team').map((s) => s.id)).toEqual([mine.id]);
    expect(all.filter((s) => s.satellite_type === 'global').every((g) => visible.some((s) => s.id === g.id))).toBe(
      true,
    );
    await expect(
      stack.adminBus.request(registrySubjects.getSatellite, { satellite_id: theirs.id }, { identity: member }),
    ).rejects.toMatchObject({ code: 'not_found' });
    await expect(
      stack.adminBus.request(registrySubjects.listSatellites, { team_id: 'list-b' }, { identity: member }),
    ).rejects.toMatchObject({ code: 'forbidden' });
    await expect(
      stack.adminBus.request(registrySubjects.revokeSatellite, { satellite_id: mine.id }, { identity: member }),
    ).rejects.toMatchObject({ code: 'forbidden' });
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
