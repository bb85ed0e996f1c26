const tones: Record<string, 'good' | 'busy' | 'bad' | 'idle'> = {
  online: 'good',
  active: 'good',
  healthy: 'good',
  succeeded: 'good',
  provisioning: 'busy',
  command_received: 'busy',
  connecting: 'busy',
  discovering_tools: 'busy',
  syncing_tools: 'busy',
  restarting: 'busy',
  retrying: 'busy',
  inactive: 'busy',
  error: 'bad',
  failed: 'bad',
  requires_reauth: 'bad',
  permanently_failed: 'bad',
  unhealthy: 'bad',
  revoked: 'bad',
  offline: 'idle',
  unknown: 'idle',
};

/** A status word with a colour; the word itself carries the meaning, so colour is never the only cue. */
export function StatusBadge({ status, label }: { status: string; label?: string }) {
  return <span className={`badge badge-${tones[status] ?? 'idle'}`}>{label ?? status.replaceAll('_', ' ')}</span>;
}
