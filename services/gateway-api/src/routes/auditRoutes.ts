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
} from '@orbital/contracts';
import type { Logger } from '@orbital/logger';
import { alreadyInSnapshot, skipMessage } from '@orbital/sse';
import { z } from 'zod';
import { streamAuditExport } from '../audit/streamAuditExport.ts';
import type { RouteInput } from '../http/defineRoute.ts';
import { teamParams } from '../http/pathParams.ts';
import { relayTable, type SendSubject, subjectTable } from '../http/proxyRoute.ts';
import { matchesAuditFilter } from './liveFilters.ts';
import { type StreamSettings, serveRouteStream, streamResponse } from './streamRouteOptions.ts';

const tags = ['audit'];
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
type SendList = SendSubject<typeof auditSubjects.list>;
type ExportQuery = AuditFilter & { format: 'csv' | 'json' };

/** On a team's path, the filter is the team's. */
const scoped = (filter: AuditFilter, teamId?: string): AuditFilter => ({
  ...filter,
  ...(teamId ? { team_id: teamId } : {}),
});

/** An export reads the log in the largest pages; its first page is what access is judged on. */
const firstExportPage = ({ format: _format, ...filter }: ExportQuery, teamId?: string) => ({
  ...scoped(filter, teamId),
  limit: auditPageLimitMax,
});

/**
 * The audit log for people: global admins read all of it (`/api/audit`), a team's admins their team's
 * entries (`/api/teams/:teamId/audit`); each with a live stream and an export. Each route takes the list
 * subject's access; the settings service, which stores the log, judges it again on every request.
 */
export function auditRoutes(deps: AuditRoutesDeps) {
  const { bus, logger, streams } = deps;
  const relay = relayTable(bus, tags);
  const serve = subjectTable(bus, tags);

  function stream(input: Input, filter: AuditFilter, teamId: string | undefined, route: string, send: SendList) {
    return serveRouteStream({ bus, logger, settings: streams }, input, route, {
      event: auditEntryRecordedEvent,
      // A team's stream reads its team's subjects only, filtered by the server.
      ...(teamId ? { tokens: { scope: teamId } } : {}),
      snapshot: (): Promise<AuditPage> => send(),
      update(entry, { sent }) {
        if (!matchesAuditFilter(entry, scoped(filter, teamId))) return skipMessage;
        if (sent?.entries.some((shown) => shown.id === entry.id)) return alreadyInSnapshot;
        return entry;
      },
    });
  }

  async function exportLog(input: Input, query: ExportQuery, teamId: string | undefined, send: SendList) {
    const { format, ...filter } = query;
    // The first page before any byte: a refusal or an outage answers as an ordinary error.
    const first = await send();
    const result = await streamAuditExport({
      response: input.reply.raw,
      hijack: () => input.reply.hijack(),
      format,
      first,
      next: (cursor) => send({ ...firstExportPage(query, teamId), cursor }),
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
    return undefined as never;
  }

  return [
    relay(
      auditSubjects.list,
      'GET /api/audit',
      'The audit log, newest first (global admins); filters and keyset paging with next_cursor',
      { querystring: auditQuery, toRequest: ({ query }) => query },
    ),
    relay(
      auditSubjects.list,
      'GET /api/teams/:teamId/audit',
      "The team's entries of the audit log, newest first (its team admins)",
      {
        params: teamParams,
        querystring: teamQuery,
        toRequest: ({ params, query }) => ({ ...query, team_id: params.teamId }),
      },
    ),
    serve(
      auditSubjects.list,
      'GET /api/audit/stream',
      'The audit log live (SSE): the first page as the snapshot, then each new entry; same filters',
      {
        querystring: streamQuery,
        response: streamResponse,
        toRequest: ({ query }) => query,
        handler: (input, send) => stream(input, input.query, undefined, 'audit/stream', send),
      },
    ),
    serve(
      auditSubjects.list,
      'GET /api/teams/:teamId/audit/stream',
      "The team's audit entries live (SSE); same filters as /api/teams/:teamId/audit",
      {
        params: teamParams,
        querystring: teamStreamQuery,
        response: streamResponse,
        toRequest: ({ params, query }) => scoped(query, params.teamId),
        handler: (input, send) => stream(input, input.query, input.params.teamId, 'teams/audit/stream', send),
      },
    ),
    serve(
      auditSubjects.list,
      'GET /api/audit/export',
      'The audit log as a CSV or JSON download (format=csv|json), every entry the filters match',
      {
        querystring: exportQuery,
        response: exportResponse,
        toRequest: ({ query }) => firstExportPage(query),
        handler: (input, send) => exportLog(input, input.query, undefined, send),
      },
    ),
    serve(
      auditSubjects.list,
      'GET /api/teams/:teamId/audit/export',
      "The team's audit entries as a CSV or JSON download (format=csv|json)",
      {
        params: teamParams,
        querystring: teamExportQuery,
        response: exportResponse,
        toRequest: ({ params, query }) => firstExportPage(query, params.teamId),
        handler: (input, send) => exportLog(input, input.query, input.params.teamId, send),
      },
    ),
  ];
}
