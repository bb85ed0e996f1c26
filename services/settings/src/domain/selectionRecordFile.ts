import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DbSelectionRecord } from '@orbital/contracts';

export const selectionFileName = 'db.selection.json';

/** Writes persistent_data/db.selection.json atomically (temporary file, then rename). */
export async function writeSelectionRecordFile(dir: string, record: DbSelectionRecord): Promise<string> {
  await mkdir(dir, { recursive: true });
  const path = join(dir, selectionFileName);
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o644 });
  await rename(temporary, path);
  return path;
}
