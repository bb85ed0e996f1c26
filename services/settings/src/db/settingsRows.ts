import { z } from 'zod';

/** slonik parses timestamptz to epoch milliseconds; the API speaks ISO 8601. */
const isoFromMillis = z.number().transform((ms) => new Date(ms).toISOString());

export const settingRow = z.object({
  key: z.string(),
  value: z.string(),
  description: z.string().nullable(),
  is_encrypted: z.boolean(),
  group_id: z.string().nullable(),
  created_at: isoFromMillis,
  updated_at: isoFromMillis,
  revision: z.coerce.number(),
});
export type SettingRow = z.infer<typeof settingRow>;

export const groupRow = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  icon: z.string().nullable(),
  sort_order: z.number(),
  created_at: isoFromMillis,
  updated_at: isoFromMillis,
});
export type GroupRow = z.infer<typeof groupRow>;
