import { type InstallationStatus, installationStatuses } from '@orbital/contracts';
import { describe, expect, it } from 'vitest';
import { nextStatus } from './nextStatus.ts';

const reported = (status: InstallationStatus, reason: 'credential_validation' | 'recovery' | 'process') =>
  ({ kind: 'status_reported', status, reason, message: null }) as const;

describe('nextStatus: the rows of the spec table', () => {
  it('recovers offline -> connecting -> discovering_tools -> online one step at a time', () => {
    expect(nextStatus('offline', reported('connecting', 'recovery'))?.status).toBe('connecting');
    expect(nextStatus('connecting', reported('discovering_tools', 'recovery'))?.status).toBe('discovering_tools');
    expect(nextStatus('discovering_tools', reported('online', 'recovery'))?.status).toBe('online');
    // Out of order or stale recovery steps change nothing.
    expect(nextStatus('online', reported('connecting', 'recovery'))).toBeNull();
    expect(nextStatus('offline', reported('online', 'recovery'))).toBeNull();
  });

  it('applies credential validation results from any status', () => {
    for (const from of installationStatuses) {
      for (const to of ['online', 'requires_reauth', 'error'] as const) {
        const change = nextStatus(from, reported(to, 'credential_validation'));
        expect(change?.status ?? from).toBe(to);
        if (change) expect(change.reason).toBe('credential_validation');
      }
    }
  });

  it('starts recovery when a tool call reaches an offline server', () => {
    expect(nextStatus('offline', { kind: 'tool_executed', success: true })).toMatchObject({
      status: 'connecting',
      reason: 'recovery',
    });
    expect(nextStatus('offline', { kind: 'tool_executed', success: false })).toBeNull();
    expect(nextStatus('online', { kind: 'tool_executed', success: true })).toBeNull();
  });
});

describe('nextStatus: the transitions the spec leaves open', () => {
  it('walks a new installation from provisioning to online through the process events', () => {
    let status: InstallationStatus = 'provisioning';
    status = nextStatus(status, reported('command_received', 'process'))?.status ?? status;
    expect(status).toBe('command_received');
    status = nextStatus(status, { kind: 'process_started' })?.status ?? status;
    expect(status).toBe('discovering_tools');
    status = nextStatus(status, { kind: 'tools_discovered', toolCount: 3 })?.status ?? status;
    expect(status).toBe('online');
  });

  it('restarts, fails permanently, and keeps a dormant server online', () => {
    const crash = { kind: 'process_crashed', exitCode: 1, signal: null } as const;
    expect(nextStatus('online', { ...crash, willRestart: true })?.status).toBe('restarting');
    expect(nextStatus('online', { ...crash, willRestart: false })?.status).toBe('error');
    expect(nextStatus('restarting', { kind: 'process_restarted', attempt: 2 })?.status).toBe('online');
    expect(nextStatus('restarting', { kind: 'process_permanently_failed', lastError: 'boom' })).toMatchObject({
      status: 'permanently_failed',
      message: 'boom',
    });
    expect(nextStatus('online', { kind: 'process_dormant' })).toBeNull();
    expect(nextStatus('offline', { kind: 'process_respawned' })?.status).toBe('online');
  });

  it('clears requires_reauth only by valid credentials or a new configuration', () => {
    expect(nextStatus('requires_reauth', { kind: 'process_started' })).toBeNull();
    expect(nextStatus('requires_reauth', { kind: 'tools_discovered', toolCount: 1 })).toBeNull();
    expect(nextStatus('requires_reauth', reported('online', 'process'))).toBeNull();
    expect(nextStatus('requires_reauth', reported('online', 'credential_validation'))?.status).toBe('online');
    expect(nextStatus('requires_reauth', { kind: 'configuration_changed' })?.status).toBe('provisioning');
    expect(nextStatus('permanently_failed', { kind: 'configuration_changed' })?.status).toBe('provisioning');
  });

  it('reports no change when the status stays the same', () => {
    expect(nextStatus('online', { kind: 'tools_discovered', toolCount: 2 })).toBeNull();
    expect(nextStatus('provisioning', { kind: 'created' })).toBeNull();
  });
});
