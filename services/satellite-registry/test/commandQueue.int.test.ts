import { commandCreatedEvent } from '@orbital/contracts';
import { stackForFile } from '@orbital/testing/stackForFile';
import { describe, expect, it, vi } from 'vitest';
import {
  commandStatus,
  globalAdmin,
  heartbeat,
  heartbeatBody,
  poll,
  queueCommand,
  registerSatellite,
  report,
  spawn,
  startRegistryStack,
  teamMember,
} from './registryHarness.ts';

const leaseMs = 30000;
const defaultExpiryMs = 600_000;
const stack = stackForFile(() => startRegistryStack({ leaseMs, defaultCommandExpiryMs: defaultExpiryMs }));

/** A registered satellite that has sent its first heartbeat, so it is given commands. */
async function activeSatellite(target: Parameters<typeof registerSatellite>[1], name: string) {
  const satellite = await registerSatellite(stack, target, name);
  await heartbeat(stack, satellite);
  return satellite;
}

const firstId = (queued: { commands: Array<{ id: string }> }) => queued.commands[0]?.id ?? '';

describe('heartbeats', () => {
  it('activate an inactive satellite, record its URL, and store system and process metrics', async () => {
    const sat = await registerSatellite(stack, { scope: 'team', team_id: 'team-hb' }, 'hb');
    const first = await heartbeat(stack, sat, { ...heartbeatBody(), satellite_url: 'https://hb.example.com' });
    expect(first).toEqual({ status: 'active', activated: true, next_heartbeat_ms: 30000 });
    stack.clock.advance(30000);
    expect(await heartbeat(stack, sat)).toMatchObject({ status: 'active', activated: false });

    const reader = teamMember('team-hb', 'team_user');
    const view = await stack.request('getSatellite', { satellite_id: sat.id }, reader);
    expect(view).toMatchObject({ status: 'active', satellite_url: 'https://hb.example.com', online: true });
    const metrics = await stack.request('getMetrics', { satellite_id: sat.id, query: { limit: 10 } }, reader);
    expect(metrics.heartbeats).toHaveLength(2);
    expect(metrics.heartbeats[0]).toMatchObject({ cpu_percent: 12.5, memory_used_mb: 512, process_running: 1 });
    expect(Date.parse(metrics.heartbeats[0]?.received_at ?? '')).toBeGreaterThan(
      Date.parse(metrics.heartbeats[1]?.received_at ?? ''),
    );
    expect(metrics.processes).toEqual([
      expect.objectContaining({ process_id: 'filesystem-alpha-inst-1', health: 'healthy', request_count: 7 }),
    ]);
  });

  it('refuse metrics out of range with the field, storing nothing', async () => {
    const sat = await registerSatellite(stack, { scope: 'global' }, 'hb-bad');
    const body = heartbeatBody();
    await expect(
      heartbeat(stack, sat, { ...body, system: { ...body.system, cpu_percent: 250 } }),
    ).rejects.toMatchObject({
      code: 'validation_failed',
      details: expect.arrayContaining([expect.objectContaining({ path: expect.stringContaining('cpu_percent') })]),
    });
    expect(await stack.sql('SELECT 1 FROM satellite_heartbeats WHERE satellite_id = $1', [sat.id])).toEqual([]);
  });
});

describe('own-id confinement', () => {
  it("refuses a satellite that acts for another satellite's id, whatever the subject", async () => {
    const a = await activeSatellite({ scope: 'global' }, 'own-a');
    const b = await activeSatellite({ scope: 'global' }, 'own-b');
    const queued = await queueCommand(stack, { ...spawn('team-a'), satellite_id: b.id });
    const asA = a.identity;
    await expect(stack.request('pollCommands', { satellite_id: b.id, limit: 20 }, asA)).rejects.toMatchObject({
      code: 'forbidden',
    });
    await expect(
      stack.request('heartbeat', { satellite_id: b.id, heartbeat: heartbeatBody() }, asA),
    ).rejects.toMatchObject({ code: 'forbidden' });
    await expect(
      stack.request(
        'reportResult',
        { satellite_id: b.id, result: { command_id: firstId(queued), status: 'completed' } },
        asA,
      ),
    ).rejects.toMatchObject({ code: 'forbidden' });
    await expect(stack.request('getConfiguration', { satellite_id: b.id }, asA)).rejects.toMatchObject({
      code: 'forbidden',
    });
    // Satellites do not queue commands, not even for themselves.
    await expect(
      stack.request('createCommand', { ...spawn('team-a'), satellite_id: a.id } as never, asA),
    ).rejects.toMatchObject({ code: 'forbidden' });
    // B's command is still B's, undelivered.
    expect(await commandStatus(stack, firstId(queued))).toMatchObject({ status: 'pending', attempts: 0 });
    expect((await poll(stack, b)).commands.map((c) => c.id)).toEqual([firstId(queued)]);
  });
});

describe('command polling', () => {
  it('gives an inactive satellite an empty list, not an error, and its commands once active', async () => {
    const sat = await registerSatellite(stack, { scope: 'team', team_id: 'team-in' }, 'inactive');
    await queueCommand(stack, { ...spawn('team-in'), satellite_id: sat.id });
    const inactive = await poll(stack, sat);
    expect(inactive.commands).toEqual([]);
    expect(inactive.polling).toEqual({ mode: 'normal', next_poll_ms: 30000 });
    await heartbeat(stack, sat);
    expect((await poll(stack, sat)).commands.map((c) => c.command_type)).toEqual(['spawn']);
  });

  it('returns commands by priority, then age, and asks for an immediate return while work remains', async () => {
    const sat = await activeSatellite({ scope: 'global' }, 'prio');
    const ids: Record<string, string> = {};
    for (const priority of ['low', 'normal', 'high', 'immediate', 'normal']) {
      const queued = await queueCommand(stack, { ...spawn('team-a'), priority, satellite_id: sat.id });
      ids[`${priority}-${Object.keys(ids).length}`] = firstId(queued);
      stack.clock.advance(1000);
    }
    const first = await poll(stack, sat, 3);
    expect(first.commands.map((c) => c.priority)).toEqual(['immediate', 'high', 'normal']);
    expect(first.commands[2]?.id).toBe(ids['normal-1']);
    expect(first.polling).toEqual({ mode: 'immediate', next_poll_ms: 2000 });
    const second = await poll(stack, sat, 3);
    expect(second.commands.map((c) => c.id)).toEqual([ids['normal-4'], ids['low-0']]);
    expect(second.polling.mode).toBe('normal');
    expect((await poll(stack, sat)).commands).toEqual([]);
  });

  it('splits the queue between concurrent polls of one satellite, delivering each command once', async () => {
    const sat = await activeSatellite({ scope: 'global' }, 'concurrent');
    const queued: string[] = [];
    for (let i = 0; i < 12; i++) {
      queued.push(firstId(await queueCommand(stack, { ...spawn('team-a'), satellite_id: sat.id })));
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
    const sat = await activeSatellite({ scope: 'global' }, 'modes');
    // New: quiet since registration, not yet ten minutes.
    expect((await poll(stack, sat)).polling).toEqual({ mode: 'normal', next_poll_ms: 30000 });
    stack.clock.advance(10 * 60000);
    expect((await poll(stack, sat)).polling).toEqual({ mode: 'slow', next_poll_ms: 60000 });
    await queueCommand(stack, { ...spawn('team-a'), priority: 'high', satellite_id: sat.id });
    const delivered = await poll(stack, sat);
    expect(delivered.polling).toEqual({ mode: 'high', next_poll_ms: 10000 });
    await report(stack, sat, delivered.commands[0]?.id ?? '', 'completed');
    stack.clock.advance(9 * 60000);
    expect((await poll(stack, sat)).polling.mode).toBe('normal');
    stack.clock.advance(2 * 60000);
    expect((await poll(stack, sat)).polling.mode).toBe('slow');
  });

  it('shows a global admin what the next poll would lease, leasing nothing', async () => {
    const sat = await activeSatellite({ scope: 'global' }, 'peek');
    const id = firstId(await queueCommand(stack, { ...spawn('team-a'), satellite_id: sat.id }));
    const seen = await stack.request('pollCommands', { satellite_id: sat.id, limit: 20 }, globalAdmin);
    expect(seen.commands.map((c) => c.id)).toEqual([id]);
    expect(await commandStatus(stack, id)).toMatchObject({ status: 'pending', attempts: 0 });
    await expect(
      stack.request('pollCommands', { satellite_id: sat.id, limit: 20 }, teamMember('team-a', 'team_admin')),
    ).rejects.toMatchObject({ code: 'forbidden' });
    expect((await poll(stack, sat)).commands.map((c) => c.id)).toEqual([id]);
  });
});

describe('leases, retries and expiry', () => {
  it('returns an unacknowledged command to the queue when its lease runs out, until the retry limit', async () => {
    const sat = await activeSatellite({ scope: 'global' }, 'lease');
    const id = firstId(await queueCommand(stack, { ...spawn('team-a'), satellite_id: sat.id, max_attempts: 2 }));
    expect((await poll(stack, sat)).commands.map((c) => c.id)).toEqual([id]);
    // Leased: not delivered again while the lease holds.
    expect((await poll(stack, sat)).commands).toEqual([]);
    stack.clock.advance(leaseMs + 1);
    expect((await poll(stack, sat)).commands.map((c) => c.id)).toEqual([id]);
    expect(await commandStatus(stack, id)).toMatchObject({ status: 'leased', attempts: 2 });
    stack.clock.advance(leaseMs + 1);
    expect((await poll(stack, sat)).commands).toEqual([]);
    expect(await commandStatus(stack, id)).toMatchObject({
      status: 'failed',
      attempts: 2,
      error_message: expect.any(String),
    });
  });

  it('keeps an acknowledged command with its satellite after the lease time', async () => {
    const sat = await activeSatellite({ scope: 'global' }, 'acked');
    const id = firstId(await queueCommand(stack, { ...spawn('team-a'), satellite_id: sat.id }));
    await poll(stack, sat);
    expect(await report(stack, sat, id, 'acknowledged')).toEqual({
      command_id: id,
      status: 'acknowledged',
      changed: true,
    });
    stack.clock.advance(leaseMs * 3);
    expect((await poll(stack, sat)).commands).toEqual([]);
    expect(await commandStatus(stack, id)).toMatchObject({ status: 'acknowledged', attempts: 1 });
  });

  it('drops a command that expires before delivery', async () => {
    const sat = await activeSatellite({ scope: 'global' }, 'expiry');
    const id = firstId(await queueCommand(stack, { ...spawn('team-a'), satellite_id: sat.id, expires_in_ms: 5000 }));
    stack.clock.advance(5001);
    expect((await poll(stack, sat)).commands).toEqual([]);
    expect(await commandStatus(stack, id)).toMatchObject({ status: 'expired' });
  });

  it('gives a command without an expiry the default one, so a satellite that never starts collects no queue', async () => {
    const sat = await registerSatellite(stack, { scope: 'global' }, 'never-starts');
    const id = firstId(await queueCommand(stack, { ...spawn('team-a'), satellite_id: sat.id }));
    const first = await commandStatus(stack, id);
    expect(Date.parse(first.expires_at ?? '') - Date.parse(first.created_at)).toBe(defaultExpiryMs);
    stack.clock.advance(defaultExpiryMs + 1);
    // The satellite never polls; the next command for it retires the expired one.
    const later = firstId(await queueCommand(stack, { ...spawn('team-a'), satellite_id: sat.id }));
    expect(await commandStatus(stack, id)).toMatchObject({ status: 'expired' });
    expect(await commandStatus(stack, later)).toMatchObject({ status: 'pending' });
  });
});

describe('creating commands', () => {
  it('refuses a payload that does not fit its command type, and callers other than platform services and global admins', async () => {
    await expect(
      queueCommand(stack, { command_type: 'health_check', payload: { team_id: 'team-a' } }),
    ).rejects.toMatchObject({ code: 'validation_failed' });
    await expect(
      stack.request('createCommand', spawn('team-a') as never, teamMember('team-a', 'team_admin')),
    ).rejects.toMatchObject({ code: 'forbidden' });
    await expect(
      stack.request('getCommand', { command_id: '5a0c0b1e-0000-4000-8000-000000000000' }, { kind: 'anonymous' }),
    ).rejects.toMatchObject({ code: 'unauthenticated' });
  });

  it('answers not_found for an unknown command or satellite', async () => {
    await expect(commandStatus(stack, '5a0c0b1e-0000-4000-8000-000000000000')).rejects.toMatchObject({
      code: 'not_found',
    });
    await expect(
      queueCommand(stack, { ...spawn('team-a'), satellite_id: '5a0c0b1e-0000-4000-8000-000000000001' }),
    ).rejects.toMatchObject({ code: 'not_found' });
  });
});

describe('team isolation of commands', () => {
  it("delivers a team's commands to its team satellites and global satellites, never to another team's", async () => {
    const a = await activeSatellite({ scope: 'team', team_id: 'iso-a' }, 'iso-a');
    const b = await activeSatellite({ scope: 'team', team_id: 'iso-b' }, 'iso-b');
    const global = await activeSatellite({ scope: 'global' }, 'iso-global');
    await poll(stack, global); // drain what earlier tests queued for every global satellite

    const fanned = await queueCommand(stack, spawn('iso-b', 'inst-b'));
    const targets = fanned.commands.map((c) => c.satellite_id);
    expect(targets).toEqual(expect.arrayContaining([b.id, global.id]));
    expect(targets).not.toContain(a.id);

    await expect(queueCommand(stack, { ...spawn('iso-b'), satellite_id: a.id })).rejects.toMatchObject({
      code: 'forbidden',
    });
    // Even a row queued wrongly (past the service) never reaches a satellite of another team.
    await stack.sql(
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

describe('announcing commands', () => {
  it("publishes each queued command on its own satellite's subject, where the command can already be polled", async () => {
    const sat = await activeSatellite({ scope: 'team', team_id: 'ann-a' }, 'ann-a');
    const other = await activeSatellite({ scope: 'team', team_id: 'ann-b' }, 'ann-b');
    const heard: string[] = [];
    const heardByOther: string[] = [];
    const polledWhenHeard: string[][] = [];
    const watching = [
      stack.client.watch(commandCreatedEvent, { satellite_id: sat.id }, (event) => {
        heard.push(event.command_id);
        // What a woken long poll does next: the command must be there to lease.
        void poll(stack, sat).then((p) => polledWhenHeard.push(p.commands.map((c) => c.id)));
      }),
      stack.client.watch(commandCreatedEvent, { satellite_id: other.id }, (event) =>
        heardByOther.push(event.command_id),
      ),
    ];
    await stack.client.flush();
    try {
      const id = firstId(await queueCommand(stack, { ...spawn('ann-a'), satellite_id: sat.id, priority: 'high' }));
      await vi.waitFor(() => expect(polledWhenHeard).toEqual([[id]]));
      expect(heard).toEqual([id]);
      expect(heardByOther).toEqual([]);
    } finally {
      for (const subscription of watching) subscription.unsubscribe();
    }
  });
});

describe('command results', () => {
  it('are idempotent by command id: a repeat or a late earlier status changes nothing', async () => {
    const sat = await activeSatellite({ scope: 'global' }, 'results');
    const id = firstId(await queueCommand(stack, { ...spawn('team-a'), satellite_id: sat.id }));
    await poll(stack, sat);
    expect((await report(stack, sat, id, 'executing')).changed).toBe(true);
    expect(await report(stack, sat, id, 'completed', { result: { tools: 3 } })).toEqual({
      command_id: id,
      status: 'completed',
      changed: true,
    });
    expect((await report(stack, sat, id, 'completed', { result: { tools: 99 } })).changed).toBe(false);
    expect((await report(stack, sat, id, 'acknowledged')).changed).toBe(false);
    expect(await commandStatus(stack, id)).toMatchObject({ status: 'completed', result: { tools: 3 } });
    await expect(report(stack, sat, id, 'failed', { error_message: 'boom' })).rejects.toMatchObject({
      code: 'conflict',
      instructions: expect.any(String),
    });
  });

  it("are refused for another satellite's command, unknown commands, bad ids and bad statuses", async () => {
    const owner = await registerSatellite(stack, { scope: 'global' }, 'owner');
    const other = await registerSatellite(stack, { scope: 'global' }, 'other');
    const id = firstId(await queueCommand(stack, { ...spawn('team-a'), satellite_id: owner.id }));
    await expect(report(stack, other, id, 'completed')).rejects.toMatchObject({ code: 'not_found' });
    await expect(report(stack, other, '5a0c0b1e-0000-4000-8000-000000000000', 'completed')).rejects.toMatchObject({
      code: 'not_found',
    });
    await expect(report(stack, owner, id, 'done')).rejects.toMatchObject({ code: 'validation_failed' });
    await expect(report(stack, owner, 'inst-1; DROP TABLE commands', 'completed')).rejects.toMatchObject({
      code: 'validation_failed',
      details: expect.arrayContaining([expect.objectContaining({ path: expect.stringContaining('command_id') })]),
    });
    expect(await commandStatus(stack, id)).toMatchObject({ status: 'pending' });
  });
});

describe('listing for the frontend', () => {
  it('shows a global admin every satellite and other users only their teams', async () => {
    const mine = await registerSatellite(stack, { scope: 'team', team_id: 'list-a' }, 'list-a');
    const theirs = await registerSatellite(stack, { scope: 'team', team_id: 'list-b' }, 'list-b');
    const all = await stack.request('listSatellites', {}, globalAdmin);
    expect(all.map((s) => s.id)).toEqual(expect.arrayContaining([mine.id, theirs.id]));
    const member = teamMember('list-a', 'team_user');
    const visible = await stack.request('listSatellites', {}, member);
    // Its team's satellites, and the global ones, which serve every team.
    expect(visible.filter((s) => s.satellite_type === 'team').map((s) => s.id)).toEqual([mine.id]);
    expect(all.filter((s) => s.satellite_type === 'global').every((g) => visible.some((s) => s.id === g.id))).toBe(
      true,
    );
    await expect(stack.request('getSatellite', { satellite_id: theirs.id }, member)).rejects.toMatchObject({
      code: 'not_found',
    });
    await expect(stack.request('listSatellites', { team_id: 'list-b' }, member)).rejects.toMatchObject({
      code: 'forbidden',
    });
    await expect(stack.request('revokeSatellite', { satellite_id: mine.id }, member)).rejects.toMatchObject({
      code: 'forbidden',
    });
  });
});
