import {
  installationSettings,
  installationView,
  requestLogView,
  serverLogView,
  templateView,
  userConfigView,
} from '@orbital/contracts';
import { isoTimestampColumn } from '@orbital/db';
import { z } from 'zod';

/**
 * Rows are the contract's views read from the database: the fields are declared once, in the contract.
 * A row differs where the column differs: timestamps arrive as epoch numbers, stored-only columns are
 * added, and slugs (a template's slug, an installation's server slug and name) are read as stored, so
 * that a slug rule tightened later does not make a query over older rows fail: the service can still
 * read such a row for its own work (finding it, changing or removing it, the commands and audit entries
 * that follow). The rule still applies where a row is answered: the reply views (templateView,
 * installationView, the tool-policy views) declare the contract's slug, and every reply is checked
 * against its contract before it is sent, so a reply that shows such a row fails.
 */
const storedSlug = z.string();

export const templateRow = templateView.extend({
  slug: storedSlug,
  last_health_check_at: isoTimestampColumn.nullable(),
  created_at: isoTimestampColumn,
  updated_at: isoTimestampColumn,
});
export type TemplateRow = z.infer<typeof templateRow>;

export const installationRow = installationView.extend({
  team_slug: z.string(),
  server_slug: storedSlug,
  name: storedSlug,
  secret_config: z.string(),
  status_updated_at: isoTimestampColumn,
  last_health_check_at: isoTimestampColumn.nullable(),
  last_credential_check_at: isoTimestampColumn.nullable(),
  status_source_at: isoTimestampColumn.nullable(),
  // A settings document the code cannot read falls back to the defaults rather than hiding the installation.
  settings: installationSettings.catch({ request_logging_enabled: false }),
  created_at: isoTimestampColumn,
  updated_at: isoTimestampColumn,
});
export type InstallationRow = z.infer<typeof installationRow>;

export const userConfigRow = userConfigView.extend({ secret_config: z.string(), updated_at: isoTimestampColumn });
export type UserConfigRow = z.infer<typeof userConfigRow>;

/** The id is a bigint column, which the driver may hand over as a number. */
export const serverLogRow = serverLogView.extend({ id: z.coerce.string(), timestamp: isoTimestampColumn });

export const requestLogRow = requestLogView.extend({ timestamp: isoTimestampColumn });
export type RequestLogRow = z.infer<typeof requestLogRow>;

export const countRow = z.object({ count: z.coerce.number() });
