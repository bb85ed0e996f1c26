import type { TemplateOAuth } from '@orbital/contracts';
import { type CommonQueryMethods, sql } from '@orbital/db';
import { AppError } from '@orbital/errors';
import { ForeignKeyIntegrityConstraintViolationError, UniqueIntegrityConstraintViolationError } from 'slonik';
import { type TemplateRow, templateRow } from './rows.ts';

const columns = sql.fragment`id, slug, name, description, transport, command, args, env, url, headers, oauth, untested, documentation_url,
  health_status,
  last_health_check_at, health_check_error, created_at, updated_at`;

export type TemplateFields = {
  name: string;
  description: string | null;
  transport: string;
  command: string | null;
  args: string[];
  env: Record<string, string>;
  url: string | null;
  headers: Record<string, string>;
  oauth: TemplateOAuth | null;
  untested: boolean;
  documentation_url: string | null;
};

export async function listTemplateRows(db: CommonQueryMethods): Promise<readonly TemplateRow[]> {
  return db.any(sql.type(templateRow)`SELECT ${columns} FROM mcp_server_templates ORDER BY slug`);
}

export async function findTemplate(db: CommonQueryMethods, slug: string, lock = false): Promise<TemplateRow | null> {
  return db.maybeOne(
    sql.type(templateRow)`SELECT ${columns} FROM mcp_server_templates WHERE slug = ${slug}
      ${lock ? sql.fragment`FOR UPDATE` : sql.fragment``}`,
  );
}

export async function insertTemplate(db: CommonQueryMethods, slug: string, t: TemplateFields): Promise<TemplateRow> {
  try {
    return await db.one(sql.type(templateRow)`
      INSERT INTO mcp_server_templates (slug, name, description, transport, command, args, env, url, headers, oauth,
        untested, documentation_url)
      VALUES (${slug}, ${t.name}, ${t.description}, ${t.transport}, ${t.command}, ${sql.jsonb(t.args)},
        ${sql.jsonb(t.env)}, ${t.url}, ${sql.jsonb(t.headers)}, ${t.oauth ? sql.jsonb(t.oauth) : null}, ${t.untested},
        ${t.documentation_url})
      RETURNING ${columns}`);
  } catch (error) {
    if (error instanceof UniqueIntegrityConstraintViolationError) {
      throw new AppError('conflict', `A template with slug ${slug} already exists`, { cause: error });
    }
    throw error;
  }
}

export async function updateTemplateRow(db: CommonQueryMethods, slug: string, t: TemplateFields): Promise<TemplateRow> {
  return db.one(sql.type(templateRow)`
    UPDATE mcp_server_templates SET name = ${t.name}, description = ${t.description}, transport = ${t.transport},
      command = ${t.command}, args = ${sql.jsonb(t.args)}, env = ${sql.jsonb(t.env)}, url = ${t.url},
      headers = ${sql.jsonb(t.headers)}, oauth = ${t.oauth ? sql.jsonb(t.oauth) : null},
      untested = ${t.untested}, documentation_url = ${t.documentation_url}, updated_at = now()
    WHERE slug = ${slug}
    RETURNING ${columns}`);
}

export async function deleteTemplateRow(db: CommonQueryMethods, slug: string): Promise<boolean> {
  try {
    const result = await db.query(sql.unsafe`DELETE FROM mcp_server_templates WHERE slug = ${slug}`);
    return result.rowCount > 0;
  } catch (error) {
    if (error instanceof ForeignKeyIntegrityConstraintViolationError) {
      throw new AppError('conflict', `Template ${slug} is installed by teams; remove those installations first`, {
        cause: error,
      });
    }
    throw error;
  }
}

/**
 * The template health aggregate, in one statement: healthy when every installation is online,
 * unhealthy when any is offline, in error, permanently failed or needs re-authentication (the error
 * text counts them), unknown without installations or while they are starting.
 */
export async function aggregateTemplateHealth(db: CommonQueryMethods, tickAt: string): Promise<number> {
  const result = await db.query(sql.unsafe`
    WITH counts AS (
      SELECT t.id,
        count(i.id) AS total,
        count(i.id) FILTER (WHERE i.status = 'online') AS online,
        count(i.id) FILTER (WHERE i.status IN ('offline', 'error', 'permanently_failed', 'requires_reauth')) AS failing,
        string_agg(DISTINCT i.status, ', ' ORDER BY i.status)
          FILTER (WHERE i.status IN ('offline', 'error', 'permanently_failed', 'requires_reauth')) AS failing_statuses
      FROM mcp_server_templates t LEFT JOIN mcp_installations i ON i.template_id = t.id
      GROUP BY t.id
    )
    UPDATE mcp_server_templates t SET
      health_status = CASE WHEN c.failing > 0 THEN 'unhealthy'
                           WHEN c.total > 0 AND c.online = c.total THEN 'healthy'
                           ELSE 'unknown' END,
      health_check_error = CASE WHEN c.failing > 0
                           THEN c.failing || ' of ' || c.total || ' installations failing (' || c.failing_statuses || ')'
                           ELSE NULL END,
      last_health_check_at = ${tickAt}::timestamptz
    FROM counts c WHERE c.id = t.id`);
  return result.rowCount;
}
