import { isoTimestampColumn } from '@orbital/db';
import { z } from 'zod';

export const settingRow = z.object({
  key: z.string(),
  value: z.string(),
  description: z.string().nullable(),
  is_encrypted: z.boolean(),
  group_id: z.string().nullable(),
  created_at: isoTimestampColumn,
  updated_at: isoTimestampColumn,
  revision: z.coerce.number(),
});
export type SettingRow = z.infer<typeof settingRow>;

export const groupRow = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  icon: z.string().nullable(),
  sort_order: z.number(),
  created_at: isoTimestampColumn,
  updated_at: isoTimestampColumn,
});
export type GroupRow = z.infer<typeof groupRow>;
