import { groupView, storedSetting } from '@orbital/contracts';
import { isoTimestampColumn } from '@orbital/db';
import { z } from 'zod';

/**
 * The rows as the database returns them: the contracts' stored setting and group, with the timestamps
 * and the revision (a bigint) read from their column types, and a group id as stored (the contract
 * checks the form of new ids; a stored one is read as it is).
 */
export const settingRow = storedSetting.extend({
  created_at: isoTimestampColumn,
  updated_at: isoTimestampColumn,
  revision: z.coerce.number(),
});
export type SettingRow = z.infer<typeof settingRow>;

export const groupRow = groupView.extend({
  id: z.string(),
  created_at: isoTimestampColumn,
  updated_at: isoTimestampColumn,
});
export type GroupRow = z.infer<typeof groupRow>;
