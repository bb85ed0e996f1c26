import { createHash } from 'node:crypto';
import type { JsMsg } from '@nats-io/jetstream';
import { parkedEventSubject, parkedHeaderNames, parkedSubject } from '@orbital/contracts';
import { AppError } from '@orbital/errors';
import type { Bus } from './createBus.ts';
import { publishData } from './publishEvent.ts';

/** Header values cannot hold line breaks; reasons are cut short, the cause is in the log line. */
function headerValue(text: string): string {
  return text.replace(/[\r\n]+/g, ' ').slice(0, 500);
}

/**
 * Copies a message to `parked.<durable>` with its original subject, sequence, attempts and the reason,
 * and waits for EVENTS_PARKED to store it. The id makes a repeated park of the same message one copy.
 *
 * `part` parks one event of a batch message instead (its own bytes), so the others of the batch need
 * not be parked with it. Its batch stays in the stream until the others are stored, and may be
 * delivered again much later (an outage, a restart), so such an event is parked on a subject of its
 * own, named after its message's sequence, its place and its bytes, and only while that subject is
 * empty: an event is parked once, however often and however late its batch comes back.
 *
 * Resolves true when this call parked it, false when it already was.
 */
export async function parkMessage(
  bus: Bus,
  msg: JsMsg,
  context: { durable: string; attempts: number; reason: string; part?: { index: number; data: string } },
): Promise<boolean> {
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
  const part = context.part;
  const msgId = `${msg.info.stream}:${msg.seq}:${context.durable}${originalId ? `:${originalId}` : ''}`;
  if (!part) {
    const stored = await publishData(bus, parkedSubject(context.durable), msg.data, { headers, msgId });
    return !stored.duplicate;
  }
  const digest = createHash('sha256').update(part.data).digest('base64url').slice(0, 16);
  const subject = parkedEventSubject(context.durable, `${msg.seq}-${part.index}-${digest}`);
  try {
    const stored = await publishData(bus, subject, part.data, {
      headers,
      msgId: `${msgId}:event-${part.index}`,
      firstOnSubject: true,
    });
    return !stored.duplicate;
  } catch (error) {
    if (error instanceof AppError && error.code === 'conflict') return false;
    throw error;
  }
}
