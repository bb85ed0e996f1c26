import type { ClientType } from '@orbital/contracts';

/** Client type from a User-Agent naming vscode, cursor or claude (any case); anything else is `unknown`. */
export function detectClientType(userAgent: string | undefined): ClientType {
  const ua = (userAgent ?? '').toLowerCase();
  if (ua.includes('vscode')) return 'vscode';
  if (ua.includes('cursor')) return 'cursor';
  if (ua.includes('claude')) return 'claude';
  return 'unknown';
}
