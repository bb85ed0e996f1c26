import { describe, expect, it } from 'vitest';
import * as contracts from '../index.ts';
import { broadcastCatalogue, contractsOf, eventCatalogue, subjectCatalogue } from './contractCatalogue.ts';

const isSubject = (value: unknown): value is contracts.SubjectDef =>
  typeof value === 'object' && value !== null && 'subject' in value && 'service' in value && 'access' in value;
const isEvent = (value: unknown): value is contracts.EventDef =>
  typeof value === 'object' && value !== null && 'subject' in value && 'stream' in value && 'payload' in value;

/** Every definition the library exports, at the top level or in a record of them. */
function exported<T>(guard: (value: unknown) => value is T): T[] {
  const found: T[] = [];
  for (const value of Object.values(contracts)) {
    if (guard(value)) found.push(value);
    else if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      for (const inner of Object.values(value)) if (guard(inner)) found.push(inner);
    }
  }
  return [...new Set(found)];
}

describe('the contract catalogue', () => {
  it('lists every subject and event libs/contracts defines, each once', () => {
    expect(exported(isSubject).filter((def) => !subjectCatalogue.includes(def))).toEqual([]);
    expect(exported(isEvent).filter((def) => !eventCatalogue.includes(def))).toEqual([]);
    const names = [...subjectCatalogue, ...eventCatalogue, ...broadcastCatalogue].map((def) => def.subject);
    expect(names.filter((name, i) => names.indexOf(name) !== i)).toEqual([]);
  });

  it('names for every subject who may send it, and for every event who publishes it', () => {
    const unreachable = subjectCatalogue.filter((def) => contracts.requestersOf(def.access).length === 0);
    expect(unreachable.map((def) => def.subject)).toEqual([]);
    for (const def of eventCatalogue) expect(contracts.processNames).toContain(def.producer);
  });

  it('enumerates what each process serves, requests, publishes and consumes', () => {
    const installations = contractsOf('installations');
    expect(installations.serves.map((d) => d.subject)).toContain('installations.installation.create');
    expect(installations.requests.map((d) => d.subject)).toEqual(
      expect.arrayContaining(['registry.command.create', 'identity.team.get']),
    );
    expect(installations.publishes.map((d) => d.subject)).toContain(
      'evt.installation.status_changed.{team_id}.{installation_id}',
    );
    expect(installations.consumes.map((d) => d.subject)).toContain('evt.satellite.{satellite_id}.mcp.server.crashed');
    expect(installations.consumes.map((d) => d.subject)).not.toContain('evt.satellite.{satellite_id}.config.refreshed');

    const gateway = contractsOf('gateway-api');
    expect(gateway.serves.map((d) => d.subject)).toEqual([
      'identity.db.migrate',
      'identity.team.get',
      'identity.notice.satellite_offline',
    ]);
    // The edge sends what people and satellites ask for, and nothing only services may send.
    expect(gateway.requests.map((d) => d.subject)).toContain('installations.installation.list');
    expect(gateway.requests.map((d) => d.subject)).not.toContain('installations.config.for_satellite');
    expect(gateway.listens.map((d) => d.subject)).toContain('registry.apikey.invalidated');

    const jobs = contractsOf('jobs');
    expect(jobs.requests.map((d) => d.subject).sort()).toEqual([
      'audit.entry.prune',
      'installations.jobs.credential_validation',
      'installations.jobs.log_cleanup',
      'installations.jobs.template_health',
    ]);
    expect(jobs.publishes).toEqual([]);
  });
});
