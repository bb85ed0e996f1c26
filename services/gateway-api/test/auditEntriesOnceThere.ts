import type { AuditEntry } from '@orbital/contracts';
import { vi } from 'vitest';

/**
 * What `read` finds once it finds `count` entries: delivery to the audit log follows the commit of what
 * is audited, so a test reads until the entries are there.
 */
export function auditEntriesOnceThere(
  read: () => Promise<AuditEntry[]>,
  count: number,
  what: string,
): Promise<AuditEntry[]> {
  return vi.waitFor(
    async () => {
      const found = await read();
      if (found.length < count) throw new Error(`expected ${count} entries for ${what}: ${found.length}`);
      return found;
    },
    { timeout: 15000, interval: 100 },
  );
}
