import { type CommonQueryMethods, sql } from '@orbital/db';
import { AppError } from '@orbital/errors';
import { UniqueIntegrityConstraintViolationError } from 'slonik';
import { type InstallationRow, installationRow, type UserConfigRow, userConfigRow } from './rows.ts';

const columns = sql.fragment`i.id, i.team_id, i.team_slug, i.template_id, t.slug AS server_slug, i.name, i.args,
  i.secret_config, i.env_keys, i.header_keys, i.status, i.status_message, i.status_updated_at,
  i.last_health_check_at, i.last_credential_check_at, i.status_source_at, i.settings, i.created_by, i.created_at,
  i.updated_at`;
const from = sql.fragment`mcp_installations i JOIN mcp_server_templates t ON t.id = i.template_id`;

function nameTaken(error: unknown, name: string): never {
  if (error instanceof UniqueIntegrityConstraintViolationError) {
    throw new AppError('conflict', `The team already has an installation named ${name}`, { cause: error });
  }
  throw error;
}

export async function listTeamInstallations(
  db: CommonQueryMethods,
  teamId: string,
): Promise<readonly InstallationRow[]> {
  return db.any(sql.type(installationRow)`SELECT ${columns} FROM ${from} WHERE i.team_id = ${teamId} ORDER BY i.name`);
}

/** The installation of that team, optionally locked for a status or configuration change. */
export async function findInstallation(
  db: CommonQueryMethods,
  teamId: string,
  installationId: string,
  lock = false,
): Promise<InstallationRow | null> {
  return db.maybeOne(sql.type(installationRow)`
    SELECT ${columns} FROM ${from} WHERE i.id = ${installationId} AND i.team_id = ${teamId}
    ${lock ? sql.fragment`FOR UPDATE OF i` : sql.fragment``}`);
}

/** By id alone: a row read back after a write whose team was checked before it. */
export async function findInstallationById(
  db: CommonQueryMethods,
  installationId: string,
): Promise<InstallationRow | null> {
  return db.maybeOne(sql.type(installationRow)`SELECT ${columns} FROM ${from} WHERE i.id = ${installationId}`);
}

/** Many installations by id, locked in id order (so two batches never wait on each other in a cycle). */
export async function lockInstallationsById(
  db: CommonQueryMethods,
  ids: readonly string[],
): Promise<readonly InstallationRow[]> {
  if (ids.length === 0) return [];
  return db.any(sql.type(installationRow)`
    SELECT ${columns} FROM ${from} WHERE i.id = ANY(${sql.array([...ids], 'uuid')}) ORDER BY i.id FOR UPDATE OF i`);
}

/** Many installations by id, unlocked. */
export async function findInstallationsById(
  db: CommonQueryMethods,
  ids: readonly string[],
): Promise<readonly InstallationRow[]> {
  if (ids.length === 0) return [];
  return db.any(
    sql.type(installationRow)`SELECT ${columns} FROM ${from} WHERE i.id = ANY(${sql.array([...ids], 'uuid')})`,
  );
}

export async function listInstallationsOfTemplate(db: CommonQueryMethods, templateId: string) {
  return db.any(sql.type(installationRow)`SELECT ${columns} FROM ${from} WHERE i.template_id = ${templateId}`);
}

export type NewInstallation = {
  id: string;
  teamId: string;
  teamSlug: string;
  templateId: string;
  name: string;
  args: string[];
  secretConfig: string;
  envKeys: string[];
  headerKeys: string[];
  settings: { request_logging_enabled: boolean };
  createdBy: string | null;
  statusMessage: string;
};

export async function insertInstallation(db: CommonQueryMethods, n: NewInstallation): Promise<void> {
  try {
    await db.query(sql.unsafe`
      INSERT INTO mcp_installations (id, team_id, team_slug, template_id, name, args, secret_config, env_keys,
        header_keys, settings, created_by, status, status_message)
      VALUES (${n.id}, ${n.teamId}, ${n.teamSlug}, ${n.templateId}, ${n.name}, ${sql.jsonb(n.args)}, ${n.secretConfig},
        ${sql.array(n.envKeys, 'text')}, ${sql.array(n.headerKeys, 'text')}, ${sql.jsonb(n.settings)},
        ${n.createdBy}, 'provisioning', ${n.statusMessage})`);
  } catch (error) {
    nameTaken(error, n.name);
  }
}

export async function updateInstallationConfig(
  db: CommonQueryMethods,
  id: string,
  c: { name: string; args: string[]; secretConfig: string; envKeys: string[]; headerKeys: string[] },
): Promise<void> {
  try {
    await db.query(sql.unsafe`
      UPDATE mcp_installations SET name = ${c.name}, args = ${sql.jsonb(c.args)}, secret_config = ${c.secretConfig},
        env_keys = ${sql.array(c.envKeys, 'text')}, header_keys = ${sql.array(c.headerKeys, 'text')}, updated_at = now()
      WHERE id = ${id}`);
  } catch (error) {
    nameTaken(error, c.name);
  }
}

export async function updateInstallationSettings(
  db: CommonQueryMethods,
  id: string,
  settings: { request_logging_enabled: boolean },
): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE mcp_installations SET settings = settings || ${sql.jsonb(settings)}, updated_at = now() WHERE id = ${id}`);
}

export async function deleteInstallationRow(db: CommonQueryMethods, id: string): Promise<void> {
  await db.query(sql.unsafe`DELETE FROM mcp_installations WHERE id = ${id}`);
}

export type StatusWrite = {
  id: string;
  status: string;
  message: string | null;
  sourceAt: string | null;
};

/** Writes a status change and stamps it; returns the stamped row. */
export async function writeStatus(db: CommonQueryMethods, w: StatusWrite): Promise<InstallationRow> {
  await db.query(sql.unsafe`
    UPDATE mcp_installations SET status = ${w.status}, status_message = ${w.message}, status_updated_at = clock_timestamp(),
      status_source_at = COALESCE(${w.sourceAt}::timestamptz, status_source_at)
    WHERE id = ${w.id}`);
  const row = await findInstallationById(db, w.id);
  if (!row) throw new AppError('not_found', 'The installation no longer exists');
  return row;
}

/** Stamps a completed check without a status change. */
export async function stampCheck(
  db: CommonQueryMethods,
  id: string,
  check: 'health' | 'credential',
  at: string,
): Promise<void> {
  const column =
    check === 'health' ? sql.identifier(['last_health_check_at']) : sql.identifier(['last_credential_check_at']);
  await db.query(sql.unsafe`UPDATE mcp_installations SET ${column} = ${at}::timestamptz WHERE id = ${id}`);
}

/**
 * Installations due for credential validation at the tick at `tickAt`, ticks being `everyMs` apart:
 * each installation has a fixed phase in the rotation window (from an md5 of its id, so phases are
 * spread evenly and stable across ticks and replicas), and is due at the tick whose interval
 * (tickAt - everyMs, tickAt] holds its phase. The intervals tile the time line, so each installation
 * is validated once per rotation whatever the tick interval, and a retried tick selects the same ones
 * (services/jobs/README.md has the derivation).
 */
export async function dueForCredentialValidation(
  db: CommonQueryMethods,
  tickAt: string,
  rotationMinutes: number,
  everyMs: number,
): Promise<readonly { id: string; team_id: string }[]> {
  const rotationMs = rotationMinutes * 60_000;
  return db.any(sql.unsafe`
    SELECT id, team_id FROM mcp_installations
    WHERE mod(
        mod(
          floor(extract(epoch FROM ${tickAt}::timestamptz) * 1000)::bigint
            - mod(('x' || substr(md5(id::text), 1, 8))::bit(32)::bigint, ${rotationMs}::bigint),
          ${rotationMs}::bigint
        ) + ${rotationMs}::bigint,
        ${rotationMs}::bigint
      ) < ${everyMs}::bigint
    ORDER BY id`) as Promise<readonly { id: string; team_id: string }[]>;
}

export async function findUserConfig(
  db: CommonQueryMethods,
  installationId: string,
  userId: string,
): Promise<UserConfigRow | null> {
  return db.maybeOne(sql.type(userConfigRow)`
    SELECT installation_id, user_id, args, secret_config, env_keys, updated_at FROM mcp_user_configs
    WHERE installation_id = ${installationId} AND user_id = ${userId}`);
}

export async function upsertUserConfig(
  db: CommonQueryMethods,
  c: { installationId: string; userId: string; args: string[]; secretConfig: string; envKeys: string[] },
): Promise<UserConfigRow> {
  return db.one(sql.type(userConfigRow)`
    INSERT INTO mcp_user_configs (installation_id, user_id, args, secret_config, env_keys)
    VALUES (${c.installationId}, ${c.userId}, ${sql.jsonb(c.args)}, ${c.secretConfig}, ${sql.array(c.envKeys, 'text')})
    ON CONFLICT (installation_id, user_id) DO UPDATE SET args = EXCLUDED.args, secret_config = EXCLUDED.secret_config,
      env_keys = EXCLUDED.env_keys, updated_at = now()
    RETURNING installation_id, user_id, args, secret_config, env_keys, updated_at`);
}
