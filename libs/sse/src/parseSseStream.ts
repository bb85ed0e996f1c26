/** A dispatched event as a client sees it. */
export type ReceivedSseEvent = { id: string; event: string; data: string };

/**
 * An incremental parser of the event-stream format, following the WHATWG rules (last event id kept
 * across events, empty-data events not dispatched, comments ignored). For tests and for services that
 * read a stream; browsers use EventSource.
 */
export function createSseParser(onEvent: (event: ReceivedSseEvent) => void) {
  let buffer = '';
  let data: string[] = [];
  let eventType = '';
  let lastEventId = '';
  let retryMs: number | null = null;

  function line(text: string) {
    if (text === '') {
      if (data.length > 0) onEvent({ id: lastEventId, event: eventType || 'message', data: data.join('\n') });
      data = [];
      eventType = '';
      return;
    }
    if (text.startsWith(':')) return;
    const colon = text.indexOf(':');
    const field = colon === -1 ? text : text.slice(0, colon);
    let value = colon === -1 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'event') eventType = value;
    else if (field === 'id' && !value.includes('\0')) lastEventId = value;
    else if (field === 'retry' && /^\d+$/.test(value)) retryMs = Number(value);
  }

  return {
    push(chunk: string) {
      buffer += chunk;
      for (;;) {
        const match = /\r\n|\r|\n/.exec(buffer);
        if (!match) break;
        line(buffer.slice(0, match.index));
        buffer = buffer.slice(match.index + match[0].length);
      }
    },
    /** What a reconnecting client sends as Last-Event-ID. */
    lastEventId: () => lastEventId,
    retryMs: () => retryMs,
  };
}
