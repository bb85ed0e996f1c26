import { auditSubjects, jobWorkSubjects, type SubjectDef } from '@orbital/contracts';
import { describe, expect, it } from 'vitest';
import { createSchedules, recordedIdsLimit, type WorkRequester } from './createSchedules.ts';

const settings = {
  credentialValidationEveryMs: 60_000,
  templateHealthEveryMs: 180_000,
  logCleanupEveryMs: 600_000,
  rotationMinutes: 15,
  logLinesKept: 100,
};
const tickAt = new Date('2025-01-01T12:01:00.000Z');

/** Answers every request with `reply` and remembers what was asked, validating it against the contract. */
function recorder(reply: unknown) {
  const asked: Array<{ subject: string; payload: unknown }> = [];
  const request = (async (def: SubjectDef, payload: unknown) => {
    asked.push({ subject: def.subject, payload: def.request.parse(payload) });
    return reply;
  }) as WorkRequester;
  return { asked, request };
}

describe('createSchedules', () => {
  it('times the three schedules from configuration', () => {
    expect(createSchedules(settings).map((s) => [s.name, s.everyMs])).toEqual([
      ['credential_validation', 60_000],
      ['template_health', 180_000],
      ['log_cleanup', 600_000],
    ]);
  });

  it('asks installations for the due credentials of this tick, and records a bounded id list', async () => {
    const ids = Array.from({ length: recordedIdsLimit + 7 }, (_, i) => `inst-${i}`);
    const { asked, request } = recorder({ due: ids.length, queued: ids.length, installation_ids: ids });
    const [validation] = createSchedules(settings);
    const result = await validation?.perform(tickAt, request);
    expect(asked).toEqual([
      {
        subject: jobWorkSubjects.credentialValidation.subject,
        payload: { tick_at: '2025-01-01T12:01:00.000Z', rotation_minutes: 15, every_ms: 60_000 },
      },
    ]);
    expect(result).toEqual({
      due: ids.length,
      queued: ids.length,
      installation_ids: ids.slice(0, recordedIdsLimit),
      installation_ids_omitted: 7,
    });
  });

  it('asks for template health with the tick, for cleanup with the lines kept, then the audit log to prune', async () => {
    const { asked, request } = recorder({ templates_updated: 1, removed: 1, retention_days: 30 });
    const [, health, cleanup] = createSchedules({ ...settings, logLinesKept: 250 });
    await health?.perform(tickAt, request);
    const result = await cleanup?.perform(tickAt, request);
    expect(asked).toEqual([
      { subject: jobWorkSubjects.templateHealth.subject, payload: { tick_at: '2025-01-01T12:01:00.000Z' } },
      {
        subject: jobWorkSubjects.logCleanup.subject,
        payload: { keep_per_installation: 250, tick_at: '2025-01-01T12:01:00.000Z' },
      },
      { subject: auditSubjects.prune.subject, payload: { tick_at: '2025-01-01T12:01:00.000Z' } },
    ]);
    expect(result).toMatchObject({ removed: 1, audit_entries_removed: 1, audit_retention_days: 30 });
  });
});
