import type { Logger } from '@orbital/logger';
import { parseNumber } from '@orbital/settings-client';
import type { SettingsOperations } from './createSettingsOperations.ts';

export const defaultRetentionDays = 90;

/**
 * The audit.retention_days setting, in whole days, at least one. A value that cannot be read (deleted,
 * or not a number) keeps the default rather than stopping the pruning, and says so in the log.
 */
export async function readRetentionDays(operations: Pick<SettingsOperations, 'getValues'>, logger: Logger) {
  const { values } = await operations.getValues({ keys: ['audit.retention_days'] });
  const raw = values['audit.retention_days'];
  try {
    if (raw === undefined) throw new Error('missing');
    return Math.max(1, Math.floor(parseNumber('audit.retention_days', raw)));
  } catch {
    logger.warn(
      { key: 'audit.retention_days', used: defaultRetentionDays },
      'retention setting unreadable; default used',
    );
    return defaultRetentionDays;
  }
}
