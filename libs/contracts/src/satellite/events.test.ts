import { describe, expect, it } from 'vitest';
import { eventSubject, isEventSubject } from '../events/defineEvent.ts';
import { canonicalId } from '../ids.ts';
import { canonicalSatelliteEvent, parseSatelliteEvent, type SatelliteEvent } from './events.ts';
import { satelliteEvents } from './satelliteEventDefinitions.ts';

const crashed = {
  id: '0b6f8f6e-6a47-4f4b-9d35-1f7c0f6c2a10',
  type: 'mcp.server.crashed',
  timestamp: '2026-11-21T05:00:00.000Z',
  data: {
    server_id: 'inst-1',
    server_slug: 'github',
    installation_name: 'github',
    team_id: 'team-1',
    process_id: 4242,
    exit_code: 1,
    signal: null,
    uptime_seconds: 12.5,
    crash_count: 1,
    will_restart: true,
  },
};

describe('satellite events', () => {
  it('accepts an event whose data matches its type', () => {
    const parsed = parseSatelliteEvent(crashed);
    expect(parsed.success).toBe(true);
  });

  it('names the bad data field of an event', () => {
    const parsed = parseSatelliteEvent({ ...crashed, data: { ...crashed.data, will_restart: 'yes' } });
    expect(parsed).toEqual({ success: false, issues: [expect.objectContaining({ path: 'data.will_restart' })] });
  });

  it('refuses unknown types and events without a client id', () => {
    expect(parseSatelliteEvent({ ...crashed, type: 'mcp.server.exploded' }).success).toBe(false);
    const { id: _id, ...withoutId } = crashed;
    expect(parseSatelliteEvent(withoutId).success).toBe(false);
  });

  it('keeps the dots of the type in the subject and refuses ids that would change it', () => {
    const def = satelliteEvents['mcp.server.crashed'];
    const event = def.payload.parse(crashed);
    expect(eventSubject(def, event, { satellite_id: 'sat-1' })).toBe('evt.satellite.sat-1.mcp.server.crashed');
    expect(isEventSubject(def, 'evt.satellite.sat-1.mcp.server.crashed')).toBe(true);
    expect(isEventSubject(satelliteEvents['mcp.server.started'], 'evt.satellite.sat-1.mcp.server.crashed')).toBe(false);
    expect(() => eventSubject(def, event, { satellite_id: 'sat.1' })).toThrow();
    expect(() => eventSubject(def, event, { satellite_id: '*' })).toThrow();
    expect(() => eventSubject(def, event)).toThrow();
  });
});

describe('canonical installation ids', () => {
  const issued = '5f0c2c8e-4d0b-4c57-9a57-2b1f3f0e7a01';

  it('writes a UUID in lower case and leaves any other id as it is', () => {
    expect(canonicalId(issued.toUpperCase())).toBe(issued);
    expect(canonicalId(issued)).toBe(issued);
    expect(canonicalId('Inst-1')).toBe('Inst-1');
  });

  it('puts the id, installation ids and a UUID team id of an event in canonical form, and nothing else', () => {
    const team = 'A0C2C8E4-4D0B-4C57-9A57-2B1F3F0E7A02';
    const event = {
      ...crashed,
      id: crashed.id.toUpperCase(),
      data: { ...crashed.data, server_id: issued.toUpperCase(), team_id: team, server_slug: 'FS' },
    };
    const canonical = canonicalSatelliteEvent(event as SatelliteEvent);
    expect(canonical).toEqual({
      ...event,
      id: crashed.id,
      data: { ...event.data, server_id: issued, team_id: team.toLowerCase() },
    });
    const namedTeam = { ...crashed, data: { ...crashed.data, team_id: 'Team-1' } } as SatelliteEvent;
    expect(canonicalSatelliteEvent(namedTeam)).toBe(namedTeam);
    expect(event.data.server_id).toBe(issued.toUpperCase());
    const already = { ...crashed, data: { ...crashed.data, server_id: issued } } as SatelliteEvent;
    expect(canonicalSatelliteEvent(already)).toBe(already);
  });
});
