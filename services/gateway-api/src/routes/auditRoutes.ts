import type { AuditRecord } from '@orbital/audit';
import { auditContextOf } from '@orbital/audit';
import type { Bus } from '@orbital/bus';
import {
  type AuditFilter,
  type AuditPage,
  auditEntryRecordedEvent,
  auditFilter,
  auditPageLimitMax,
  auditQuery,
  auditSubjects,
  matchesAuditFilter,
} from '@orbital/contracts';
import type { Logger } from '@orbital/logger';
import { alreadyInSnapshot, serveEventStream, skipMessage } from '@orbital/sse';
import { z } from 'zod';
import { streamAuditExport } from '../audit/streamAuditExport.ts';
import { type Access, defineRoute, type RouteInput } from '../http/defineRoute.ts';
import { teamParams } from '../http/pathParams.ts';
import { proxyRoute } from '../http/proxyRoute.ts';
import { globalAccess, teamInPath } from '../http/routeAccess.ts';
import { type StreamSettings, streamResponse, streamRouteOptions } from './streamRouteOptions.ts';

const tags = ['audit'];
const everything = globalAccess('audit.view') satisfies Access;
const ownTeam = teamInPath('audit.view') satisfies Access;
/** On a team's path the team is the path's: a query cannot name another. */
const teamQuery = auditQuery.omit({ team_id: true });
const teamFilter = auditFilter.omit({ team_id: true });
/** A stream's snapshot is the first page; the cursor of a later page means nothing to a stream. */
const streamQuery = auditQuery.omit({ cursor: true });
const teamStreamQuery = teamQuery.omit({ cursor: true });
const exportFormat = { format: z.enum(['csv', 'json']).default('csv') };
const exportQuery = auditFilter.extend(exportFormat).strict();
const teamExportQuery = teamFilter.extend(exportFormat).strict();
const exportResponse = z.unknown().meta({ description: 'text/csv or application/json, written as the log is read' });

export type AuditRoutesDeps = {
  bus: Bus;
  logger: Logger;
  streams: StreamSettings;
  /** Records gateway-api's own entries (here: who exported the log). */
  record(record: AuditRecord): Promise<void>;
};

type Input = RouteInput<unknown, unknown, unknown>;

/**
 * The audit log for people: global admins read all of it (`/api/audit`), a team's admins their team's
 * entries (`/api/teams/:teamId/audit`); each with a live stream and an export. The settings service,
 * which stores the log, checks the same access again on every request.
 */
export function auditRoutes(deps: AuditRoutesDeps) {
  const { bus, logger, streams } = deps;
  const list = (input: Input, query: Record<string, unknown>) =>
    bus.request(auditSubjects.list, query as z.input<typeof auditQuery>, {
      identity: input.identity,
      requestId: input.requestId,
      origin: input.origin,
    });

  function stream(input: Input, filter: AuditFilter, teamId: string | undefined, route: string) {
    return serveEventStream({
      ...streamRouteOptions(bus, logger, streams, input, route),
      event: auditEntryRecordedEvent,
      // A team's stream reads its team's subjects only, filtered by the server.
      ...(teamId ? { tokens: { scope: teamId } } : {}),
      snapshot: (): Promise<AuditPage> => list(input, { ...filter, ...(teamId ? { team_id: teamId } : {}) }),
      update(entry, { sent }) {
        if (!matchesAuditFilter(entry, { ...filter, ...(teamId ? { team_id: teamId } : {}) })) return skipMessage;
        if (sent?.entries.some((shown) => shown.id === entry.id)) return alreadyInSnapshot;
        return entry;
      },
    });
  }

  async function exportLog(input: Input, query: AuditFilter & { format: 'csv' | 'json' }, teamId?: string) {
    const { format, ...filter } = query;
    const scoped = { ...filter, ...(teamId ? { team_id: teamId } : {}), limit: auditPageLimitMax };
    // The first page before any byte: a refusal or an outage answers as an ordinary error.
    const first = await list(input, scoped);
    const result = await streamAuditExport({
      response: input.reply.raw,
      hijack: () => input.reply.hijack(),
      format,
      first,
      next: (cursor) => list(input, { ...scoped, cursor }),
      logger,
    });
    // Who took a copy of the log, of what, is itself worth knowing.
    await deps
      .record({
        ...auditContextOf(input),
        action: 'audit.exported',
        target: { kind: 'audit_log', id: null },
        team_id: teamId ?? null,
        outcome: result.complete ? 'success' : 'failure',
        reason: result.complete ? null : 'cut_short',
        details: { format, entries: result.entries, filter: { ...filter } },
      })
      .catch((err: unknown) => logger.warn({ err }, 'the audit export was not recorded'));
  }

  return [
    proxyRoute(bus, auditSubjects.list, {
      method: 'GET',
      url: '/api/audit',
      summary: 'The audit log, newest first (global admins); filters and keyset paging with next_cursor',
      tags,
      querystring: auditQuery,
      toRequest: ({ query }) => query,
    }),
    proxyRoute(bus, auditSubjects.list, {
      method: 'GET',
      url: '/api/teams/:teamId/audit',
      summary: "The team's entries of the audit log, newest first (its team admins)",
      tags,
      params: teamParams,
      querystring: teamQuery,
      toRequest: ({ params, query }) => ({ ...query, team_id: params.teamId }),
    }),
    defineRoute({
      method: 'GET',
      url: '/api/audit/stream',
      summary: 'The audit log live (SSE): the first page as the snapshot, then each new entry; same filters',
      tags,
      access: everything,
      querystring: streamQuery,
      response: streamResponse,
      async handler(input) {
        await stream(input, input.query, undefined, 'audit/stream');
        return undefined as never;
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/api/teams/:teamId/audit/stream',
      summary: "The team's audit entries live (SSE); same filters as /api/teams/:teamId/audit",
      tags,
      access: ownTeam,
      params: teamParams,
      querystring: teamStreamQuery,
      response: streamResponse,
      async handler(input) {
        await stream(input, input.query, input.params.teamId, 'teams/audit/stream');
        return undefined as never;
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/api/audit/export',
      summary: 'The audit log as a CSV or JSON download (format=csv|json), every entry the filters match',
      tags,
      access: everything,
      querystring: exportQuery,
      response: exportResponse,
      async handler(input) {
        await exportLog(input, input.query);
        return undefined as never;
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/api/teams/:teamId/audit/export',
      summary: "The team's audit entries as a CSV or JSON download (format=csv|json)",
      tags,
      access: ownTeam,
      params: teamParams,
      querystring: teamExportQuery,
      response: exportResponse,
      async handler(input) {
        await exportLog(input, input.query, input.params.teamId);
        return undefined as never;
      },
    }),
  ];
}
