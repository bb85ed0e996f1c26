import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import type { AuditEntry, AuditPage } from '@orbital/contracts';
import type { Logger } from '@orbital/logger';
import { auditCsvHeader, auditCsvRow } from './formatAuditCsv.ts';

export type AuditExportFormat = 'csv' | 'json';

/** How each format begins, writes an entry and ends: JSON is one array, written an element at a time. */
const formats: Record<
  AuditExportFormat,
  { contentType: string; head: string; entry(entry: AuditEntry, first: boolean): string; tail: string }
> = {
  csv: { contentType: 'text/csv; charset=utf-8', head: auditCsvHeader(), entry: (e) => auditCsvRow(e), tail: '' },
  json: {
    contentType: 'application/json; charset=utf-8',
    head: '[',
    entry: (e, first) => `${first ? '\n' : ',\n'}${JSON.stringify(e)}`,
    tail: '\n]\n',
  },
};

/**
 * Writes an export page by page as the log answers them, so neither gateway-api nor the log holds more
 * than one page of a large export; writing waits while the client is slower than the log. The first page
 * is read by the caller before anything is written, so a refusal or an outage is still an ordinary JSON
 * error; a failure later cuts the response short (no final chunk), which a client sees as an incomplete
 * download rather than a file that looks whole.
 */
export async function streamAuditExport(o: {
  response: ServerResponse;
  /** Called once the export is accepted, before the first byte (Fastify: `reply.hijack()`). */
  hijack(): void;
  format: AuditExportFormat;
  first: AuditPage;
  next(cursor: string): Promise<AuditPage>;
  logger: Logger;
}): Promise<{ entries: number; complete: boolean }> {
  const { response } = o;
  const format = formats[o.format];
  const stamp = new Date().toISOString().replaceAll(':', '-').slice(0, 19);
  o.hijack();
  response.writeHead(200, {
    'content-type': format.contentType,
    'content-disposition': `attachment; filename="audit-${stamp}.${o.format}"`,
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  let written = 0;
  const write = async (text: string) => {
    if (!response.write(text) && !response.destroyed) await once(response, 'drain');
  };
  try {
    await write(format.head);
    let page = o.first;
    for (;;) {
      for (const entry of page.entries) {
        if (response.destroyed) return { entries: written, complete: false };
        await write(format.entry(entry, written === 0));
        written += 1;
      }
      if (!page.next_cursor) break;
      page = await o.next(page.next_cursor);
    }
    response.end(format.tail);
    return { entries: written, complete: true };
  } catch (err) {
    o.logger.warn({ err, entries: written }, 'audit export cut short');
    response.destroy();
    return { entries: written, complete: false };
  }
}
