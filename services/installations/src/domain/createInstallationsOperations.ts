import { randomUUID } from 'node:crypto';
import { type AuditContext, recordAudit } from '@orbital/audit';
import {
  type InstallationCreate,
  type InstallationStatusChanged,
  type InstallationUpdate,
  installationStatusChangedEvent,
  type RequestLogQuery,
  type ServerLogQuery,
  type TemplateCreate,
  type TemplateUpdate,
  templateCreate,
  type UserConfigBody,
} from '@orbital/contracts';
import type { SecretBox } from '@orbital/crypto';
import type { CommonQueryMethods, LivePool } from '@orbital/db';
import { type AddressPolicy, urlHostProblem } from '@orbital/egress';
import { AppError } from '@orbital/errors';
import * as q from '../db/installationQueries.ts';
import * as m from '../db/monitoringQueries.ts';
import * as t from '../db/templateQueries.ts';
import { applyStatusTrigger } from './applyStatusTrigger.ts';
import { mustFindInstallation, reconfigureAudited, reconfigureEach } from './installationChanges.ts';
import { inRelayedTransaction, type OutboxRelay, queueEvent } from './outboxRelay.ts';
import { installationView, requestLogView, statusView, templateView, userConfigView } from './views.ts';

export type TeamSlugLookup = (teamId: string) => Promise<string>;

export type InstallationsDeps = {
  pool: LivePool;
  box: SecretBox;
  relay: OutboxRelay;
  /** The team's slug, part of every process id; asked of identity when an installation is created. */
  teamSlug: TeamSlugLookup;
  /** Where template URLs may point (link-local and metadata addresses refused unless an operator allows). */
  templateUrls: AddressPolicy;
  /** In the removing transaction: queue what the installation's removal must undo elsewhere (its OAuth tokens). */
  onDeleteInstallation?: (tx: CommonQueryMethods, installationId: string) => Promise<void>;
  /** After the removal committed: send what was queued. */
  afterDelete?: () => Promise<void>;
};

/** Secrets of the team level: sealed together, bound to the installation id as additional data. */
export function sealTeamSecrets(box: SecretBox, installationId: string, secrets: TeamSecrets): string {
  return box.encrypt(JSON.stringify(secrets), `installation:${installationId}`);
}
export function openTeamSecrets(box: SecretBox, row: { id: string; secret_config: string }): TeamSecrets {
  return JSON.parse(box.decrypt(row.secret_config, `installation:${row.id}`)) as TeamSecrets;
}
export type TeamSecrets = { env: Record<string, string>; headers: Record<string, string> };

export function sealUserSecrets(box: SecretBox, installationId: string, userId: string, env: Record<string, string>) {
  return box.encrypt(JSON.stringify({ env }), `user-config:${installationId}:${userId}`);
}

export function createInstallationsOperations(deps: InstallationsDeps) {
  /** Refuses a template URL that points where satellites must not be sent, naming the field. */
  async function checkTemplateUrl(url: string | null | undefined, path: string): Promise<void> {
    if (!url) return;
    const problem = await urlHostProblem(new URL(url), deps.templateUrls);
    if (problem) {
      throw new AppError('validation_failed', `The template URL points where satellites may not connect: ${problem}`, {
        details: [{ path, message: `${problem}; an operator may allow its network (TEMPLATE_URL_ALLOWED_NETWORKS)` }],
      });
    }
  }
  const { pool, box, relay } = deps;

  const inTransaction = <T>(run: (tx: CommonQueryMethods) => Promise<T>) => inRelayedTransaction(pool, relay, run);

  async function mustFindTemplate(db: CommonQueryMethods, slug: string, lock = false) {
    const row = await t.findTemplate(db, slug, lock);
    if (!row) throw new AppError('not_found', `No MCP server template with slug ${slug}`, { details: { slug } });
    return row;
  }

  return {
    // ---- templates ----
    async listTemplates() {
      return (await t.listTemplateRows(pool.get())).map(templateView);
    },
    async getTemplate(slug: string) {
      return templateView(await mustFindTemplate(pool.get(), slug));
    },
    async createTemplate(body: TemplateCreate, who: AuditContext) {
      await checkTemplateUrl(body.url, 'url');
      const row = await inTransaction(async (tx) => {
        const created = await t.insertTemplate(tx, body.slug, {
          name: body.name,
          description: body.description ?? null,
          transport: body.transport,
          command: body.command ?? null,
          args: body.args ?? [],
          env: body.env ?? {},
          url: body.url ?? null,
          headers: body.headers ?? {},
          oauth: body.oauth ?? null,
          untested: body.untested ?? false,
          documentation_url: body.documentation_url ?? null,
        });
        await recordAudit(tx, {
          ...who,
          action: 'template.created',
          target: { kind: 'template', id: created.slug },
          details: { slug: created.slug, name: created.name, transport: created.transport },
        });
        return created;
      });
      return templateView(row);
    },
    async updateTemplate(slug: string, changes: TemplateUpdate, who: AuditContext) {
      await checkTemplateUrl(changes.url, 'changes.url');
      const row = await inTransaction(async (tx) => {
        const current = await mustFindTemplate(tx, slug, true);
        const merged: t.TemplateFields = {
          name: current.name,
          description: current.description,
          transport: current.transport,
          command: current.command,
          args: current.args,
          env: current.env,
          url: current.url,
          headers: current.headers,
          oauth: current.oauth,
          untested: current.untested,
          documentation_url: current.documentation_url,
          ...stripUndefined(changes),
        };
        // The merged template must still satisfy the transport rules of a new one.
        const checked = templateCreate.safeParse({ ...withoutNulls(merged), slug });
        if (!checked.success) {
          throw new AppError('validation_failed', 'The template would not be valid after this change', {
            details: checked.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
          });
        }
        const updated = await t.updateTemplateRow(tx, slug, merged);
        // Satellites running its installations must pick up the new template level.
        const installations = await q.listInstallationsOfTemplate(tx, current.id);
        await reconfigureEach(tx, installations);
        await recordAudit(tx, {
          ...who,
          action: 'template.updated',
          target: { kind: 'template', id: slug },
          details: { slug, changed: Object.keys(stripUndefined(changes)).sort(), installations: installations.length },
        });
        return updated;
      });
      return templateView(row);
    },
    async deleteTemplate(slug: string, who: AuditContext) {
      await inTransaction(async (tx) => {
        if (!(await t.deleteTemplateRow(tx, slug))) {
          throw new AppError('not_found', `No MCP server template with slug ${slug}`, { details: { slug } });
        }
        await recordAudit(tx, { ...who, action: 'template.deleted', target: { kind: 'template', id: slug } });
      });
      return { deleted: true as const };
    },

    // ---- installations ----
    async listInstallations(teamId: string) {
      return (await q.listTeamInstallations(pool.get(), teamId)).map(installationView);
    },
    async getInstallation(teamId: string, id: string) {
      return installationView(await mustFindInstallation(pool.get(), teamId, id));
    },
    async createInstallation(teamId: string, body: InstallationCreate, createdBy: string | null, who: AuditContext) {
      const template = await mustFindTemplate(pool.get(), body.server_slug);
      const teamSlug = await deps.teamSlug(teamId);
      const id = randomUUID();
      const row = await inTransaction(async (tx) => {
        await q.insertInstallation(tx, {
          id,
          teamId,
          teamSlug,
          templateId: template.id,
          name: body.name,
          args: body.args,
          secretConfig: sealTeamSecrets(box, id, { env: body.env, headers: body.headers }),
          envKeys: Object.keys(body.env).sort(),
          headerKeys: Object.keys(body.headers).sort(),
          settings: { request_logging_enabled: body.settings?.request_logging_enabled ?? false },
          createdBy,
          statusMessage: 'Waiting for a satellite to take the configuration',
        });
        const created = await mustFindInstallation(tx, teamId, id);
        const event: InstallationStatusChanged = {
          ...statusView(created),
          previous_status: null,
          changed_at: created.status_updated_at,
          reason: 'created',
        };
        await queueEvent(tx, installationStatusChangedEvent, event);
        // The names of the secrets given, never their values.
        await reconfigureAudited(tx, created, {
          who,
          action: 'installation.created',
          event: 'mcp_installation_created',
          details: {
            name: body.name,
            server_slug: body.server_slug,
            env_keys: Object.keys(body.env).sort(),
            header_keys: Object.keys(body.headers).sort(),
          },
        });
        return created;
      });
      return installationView(row);
    },
    async updateInstallation(teamId: string, id: string, changes: InstallationUpdate, who: AuditContext) {
      const row = await inTransaction(async (tx) => {
        const current = await mustFindInstallation(tx, teamId, id, true);
        const secrets = openTeamSecrets(box, current);
        const next = {
          env: changes.env ?? secrets.env,
          headers: changes.headers ?? secrets.headers,
        };
        await q.updateInstallationConfig(tx, id, {
          name: changes.name ?? current.name,
          args: changes.args ?? current.args,
          secretConfig: sealTeamSecrets(box, id, next),
          envKeys: Object.keys(next.env).sort(),
          headerKeys: Object.keys(next.headers).sort(),
        });
        const updated = await mustFindInstallation(tx, teamId, id, true);
        await reconfigureAudited(tx, updated, {
          who,
          action: 'installation.updated',
          details: {
            name: updated.name,
            changed: Object.keys(stripUndefined(changes)).sort(),
            env_keys: Object.keys(next.env).sort(),
            header_keys: Object.keys(next.headers).sort(),
          },
        });
        return (await applyStatusTrigger(tx, updated, { kind: 'configuration_changed' })) ?? updated;
      });
      return installationView(row);
    },
    async deleteInstallation(teamId: string, id: string, who: AuditContext) {
      await inTransaction(async (tx) => {
        const current = await mustFindInstallation(tx, teamId, id, true);
        await deps.onDeleteInstallation?.(tx, id);
        await q.deleteInstallationRow(tx, id);
        await reconfigureAudited(tx, current, {
          who,
          action: 'installation.deleted',
          event: 'mcp_installation_deleted',
          details: { name: current.name, server_slug: current.server_slug },
        });
      });
      await deps.afterDelete?.();
      return { deleted: true as const };
    },
    async putUserConfig(teamId: string, id: string, body: UserConfigBody, userId: string, who: AuditContext) {
      const row = await inTransaction(async (tx) => {
        const installation = await mustFindInstallation(tx, teamId, id);
        const stored = await q.upsertUserConfig(tx, {
          installationId: id,
          userId,
          args: body.args,
          secretConfig: sealUserSecrets(box, id, userId, body.env),
          envKeys: Object.keys(body.env).sort(),
        });
        await reconfigureAudited(tx, installation, {
          who,
          action: 'installation.user_config_updated',
          details: { name: installation.name, user_id: userId, env_keys: Object.keys(body.env).sort() },
        });
        return stored;
      });
      return userConfigView(row);
    },

    // ---- monitoring ----
    async getStatus(teamId: string, id: string) {
      return statusView(await mustFindInstallation(pool.get(), teamId, id));
    },
    async listLogs(teamId: string, id: string, query: ServerLogQuery) {
      const db = pool.get();
      await mustFindInstallation(db, teamId, id);
      const { items, total } = await m.listLogLines(db, id, query);
      return { items: [...items], total, limit: query.limit, offset: query.offset };
    },
    async listRequests(teamId: string, id: string, query: RequestLogQuery) {
      const db = pool.get();
      const installation = await mustFindInstallation(db, teamId, id);
      const enabled = installation.settings.request_logging_enabled;
      const { items, total } = await m.listRequestLogs(db, id, query);
      return {
        items: items.map((row) => requestLogView(row, enabled)),
        total,
        limit: query.limit,
        offset: query.offset,
        request_logging_enabled: enabled,
      };
    },
    async getRequest(teamId: string, id: string, requestId: string) {
      const db = pool.get();
      const installation = await mustFindInstallation(db, teamId, id);
      const row = await m.findRequestLog(db, id, requestId);
      if (!row) throw new AppError('not_found', 'No such request log for this installation');
      return requestLogView(row, installation.settings.request_logging_enabled);
    },
    async updateSettings(
      teamId: string,
      id: string,
      settings: { request_logging_enabled: boolean },
      who: AuditContext,
    ) {
      const row = await inTransaction(async (tx) => {
        const before = await mustFindInstallation(tx, teamId, id, true);
        await q.updateInstallationSettings(tx, id, settings);
        const updated = await mustFindInstallation(tx, teamId, id);
        // Satellites include tool responses in their events only when told so through configuration.
        await reconfigureAudited(tx, updated, {
          who,
          action: 'installation.settings_updated',
          details: {
            name: updated.name,
            request_logging_enabled: settings.request_logging_enabled,
            previous: { request_logging_enabled: before.settings.request_logging_enabled },
          },
        });
        return updated;
      });
      return installationView(row);
    },
  };
}

export type InstallationsOperations = ReturnType<typeof createInstallationsOperations>;

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function withoutNulls<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null)) as Partial<T>;
}
