/**
 * One server-sent event in the wire format: optional `id`, `event`,
 * `data` (one `data:` line per line of the JSON), and `retry`. An event with an id and no data moves the
 * client's last event id without dispatching anything (WHATWG: the id is taken before the empty-data
 * check), which is how a stream acknowledges a message the client already has from its snapshot.
 */
export type SseEvent = { id?: string; event?: string; data?: unknown; retryMs?: number };

export function formatSseEvent(event: SseEvent): string {
  let text = '';
  if (event.retryMs !== undefined) text += `retry: ${Math.trunc(event.retryMs)}\n`;
  if (event.id !== undefined) text += `id: ${singleLine(event.id)}\n`;
  if (event.event !== undefined) text += `event: ${singleLine(event.event)}\n`;
  if (event.data !== undefined) {
    for (const line of JSON.stringify(event.data).split('\n')) text += `data: ${line}\n`;
  }
  return `${text}\n`;
}

/** A comment line: ignored by clients, keeps proxies and load balancers from closing an idle stream. */
export function formatSseComment(text: string): string {
  return `: ${singleLine(text)}\n\n`;
}

function singleLine(value: string): string {
  if (/[\r\n]/.test(value)) throw new Error('an SSE field value cannot hold a line break');
  return value;
}
