import type { JsMsg } from '@nats-io/jetstream';
import { parkedHeaderNames, parkedSubject } from '@orbital/contracts';
import type { Bus } from './createBus.ts';
import { publishData } from './publishEvent.ts';

/** Header values cannot hold line breaks; reasons are cut short, the cause is in the log line. */
function headerValue(text: string): string {
  return text.replace(/[\r\n]+/g, ' ').slice(0, 500);
}

/**
 * Copies a message to `parked.<durable>` with its original subject, sequence, attempts and the reason,
 * and waits for EVENTS_PARKED to store it. The id makes a repeated park of the same message one copy.
 * `part` parks one event of a batch message instead (its own bytes, its own id), so the others of the
 * batch need not be parked with it.
 */
export async function parkMessage(
  bus: Bus,
  msg: JsMsg,
  context: { durable: string; attempts: number; reason: string; part?: { index: number; data: string } },
): Promise<void> {
  const headers: Record<string, string> = {};
  for (const [key, values] of msg.headers ?? []) {
    if (key.toLowerCase() === 'nats-msg-id' || values[0] === undefined) continue;
    headers[key] = values[0];
  }
  const originalSubject = bus.prefix ? msg.subject.slice(bus.prefix.length + 1) : msg.subject;
  headers[parkedHeaderNames.subject] = originalSubject;
  headers[parkedHeaderNames.stream] = msg.info.stream;
  headers[parkedHeaderNames.sequence] = String(msg.seq);
  headers[parkedHeaderNames.durable] = context.durable;
  headers[parkedHeaderNames.attempts] = String(context.attempts);
  headers[parkedHeaderNames.error] = headerValue(context.reason);
  headers[parkedHeaderNames.parkedAt] = new Date().toISOString();
  const originalId = msg.headers?.get('Nats-Msg-Id');
  const part = context.part ? `:event-${context.part.index}` : '';
  await publishData(bus, parkedSubject(context.durable), context.part ? context.part.data : msg.data, {
    headers,
    msgId: `${msg.info.stream}:${msg.seq}:${context.durable}${originalId ? `:${originalId}` : ''}${part}`,
  });
}
