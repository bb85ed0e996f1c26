import type { InstallationStatus, StatusChangeReason } from '@orbital/contracts';

/**
 * What can move an installation's status. Satellite events arrive through the event pipeline; the
 * backend's own changes (creation, a new configuration) come from the API.
 */
export type StatusTrigger =
  | { kind: 'created' }
  | { kind: 'configuration_changed' }
  | { kind: 'process_started' }
  | { kind: 'tools_discovered'; toolCount: number }
  | { kind: 'process_crashed'; willRestart: boolean; exitCode: number | null; signal: string | null }
  | { kind: 'process_restarted'; attempt: number }
  | { kind: 'process_permanently_failed'; lastError: string }
  | { kind: 'process_dormant' }
  | { kind: 'process_respawned' }
  | { kind: 'tool_executed'; success: boolean }
  | {
      kind: 'status_reported';
      status: InstallationStatus;
      reason: 'credential_validation' | 'recovery' | 'process' | 'configuration';
      message: string | null;
    };

export type StatusChange = { status: InstallationStatus; message: string | null; reason: StatusChangeReason };

/** Process life-cycle events that mean "the server is up" do not clear a credential problem. */
const upEventsKeep: ReadonlySet<InstallationStatus> = new Set(['requires_reauth']);

/** The recovery of an offline server, one step at a time. */
const recoverySteps: ReadonlyMap<InstallationStatus, InstallationStatus> = new Map([
  ['offline', 'connecting'],
  ['connecting', 'discovering_tools'],
  ['discovering_tools', 'online'],
]);

/**
 * The installation status machine: credential validation and recovery, plus the transitions decided here
 * (both tables, with reasons, in the service README). Returns null when the trigger leaves the status as
 * it is. Pure: the caller stamps and publishes.
 */
export function nextStatus(current: InstallationStatus, trigger: StatusTrigger): StatusChange | null {
  const change = decide(current, trigger);
  if (!change || change.status === current) return null;
  return change;
}

function decide(current: InstallationStatus, trigger: StatusTrigger): StatusChange | null {
  switch (trigger.kind) {
    case 'created':
      return {
        status: 'provisioning',
        message: 'Waiting for a satellite to take the configuration',
        reason: 'created',
      };
    case 'configuration_changed':
      // Any status, permanently_failed and requires_reauth included: a new configuration is a new start.
      return {
        status: 'provisioning',
        message: 'Configuration changed; waiting for satellites to apply it',
        reason: 'configuration',
      };
    case 'process_started':
      if (upEventsKeep.has(current)) return null;
      return { status: 'discovering_tools', message: 'Process started; discovering tools', reason: 'process' };
    case 'tools_discovered':
      if (upEventsKeep.has(current)) return null;
      return { status: 'online', message: `${trigger.toolCount} tools available`, reason: 'tools' };
    case 'process_crashed':
      if (trigger.willRestart) {
        return { status: 'restarting', message: crashMessage(trigger), reason: 'process' };
      }
      return { status: 'error', message: crashMessage(trigger), reason: 'process' };
    case 'process_restarted':
      if (upEventsKeep.has(current)) return null;
      return { status: 'online', message: `Restarted after a crash (attempt ${trigger.attempt})`, reason: 'process' };
    case 'process_permanently_failed':
      return {
        status: 'permanently_failed',
        message: trigger.lastError || 'Restart attempts exhausted',
        reason: 'process',
      };
    case 'process_dormant':
      // An idle stdio process is stopped and respawned on the next call: its tools stay available.
      return null;
    case 'process_respawned':
      if (upEventsKeep.has(current) || current === 'online') return null;
      return { status: 'online', message: 'Respawned on demand', reason: 'process' };
    case 'tool_executed':
      // A call that reaches an offline server shows it answers again: its recovery starts.
      if (current === 'offline' && trigger.success) {
        return { status: 'connecting', message: 'A tool call reached the server; recovering', reason: 'recovery' };
      }
      return null;
    case 'status_reported':
      return reported(current, trigger);
  }
}

function reported(current: InstallationStatus, trigger: Extract<StatusTrigger, { kind: 'status_reported' }>) {
  const { status, reason, message } = trigger;
  if (reason === 'credential_validation') {
    // From any status: valid -> online, expired or revoked -> requires_reauth, failed -> error.
    if (status === 'online' || status === 'requires_reauth' || status === 'error') {
      return { status, message, reason } satisfies StatusChange;
    }
    return null;
  }
  if (reason === 'recovery') {
    // Recovery moves one step at a time: offline -> connecting -> discovering_tools -> online.
    return recoverySteps.get(current) === status ? ({ status, message, reason } satisfies StatusChange) : null;
  }
  // Life-cycle reports from the satellite. A credential problem is cleared only by a valid credential
  // check or a new configuration, never by the process coming up again.
  if (
    current === 'requires_reauth' &&
    reason === 'process' &&
    status !== 'offline' &&
    status !== 'permanently_failed'
  ) {
    return null;
  }
  return { status, message, reason } satisfies StatusChange;
}

function crashMessage(trigger: { exitCode: number | null; signal: string | null; willRestart: boolean }): string {
  const how = trigger.signal ? `signal ${trigger.signal}` : `exit code ${trigger.exitCode ?? 'unknown'}`;
  return trigger.willRestart ? `Crashed (${how}); restarting` : `Crashed (${how})`;
}
