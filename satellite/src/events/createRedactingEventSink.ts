import type { SatelliteEventData, SatelliteEventType, ServerConfiguration } from '@orbital/contracts';
import type { EventSink } from './eventSink.ts';

/** What a secret value is replaced with wherever it appears. */
export const redacted = '[REDACTED]';

/**
 * Values shorter than this are not looked for: a short value ("1", "true", "dev") would mask ordinary
 * words and numbers everywhere, and is no credential worth the name. Documented as the limit.
 */
export const shortestRedactedValue = 8;

/**
 * The values an installation's events must never carry: its environment and header values (a team's
 * credentials; a header value also word by word, so `Bearer <token>` hides the token when the server
 * echoes it alone) and the OAuth tokens its calls carried.
 */
export function secretValuesOf(config: ServerConfiguration | undefined, extra: readonly string[] = []): string[] {
  const values = new Set<string>(extra);
  if (config) {
    for (const value of Object.values(config.env)) values.add(value);
    for (const value of Object.values(config.headers)) {
      values.add(value);
      for (const word of value.split(/\s+/)) values.add(word);
    }
  }
  // Longest first, so a value that contains another is replaced whole.
  return [...values].filter((v) => v.length >= shortestRedactedValue).sort((a, b) => b.length - a.length);
}

function redactText(text: string, secrets: readonly string[]): string {
  let result = text;
  for (const secret of secrets) if (result.includes(secret)) result = result.split(secret).join(redacted);
  return result;
}

/** Every string in the value, keys included, with the secrets replaced; walked without recursion. */
export function redactValue<T>(value: T, secrets: readonly string[]): T {
  if (secrets.length === 0) return value;
  if (typeof value === 'string') return redactText(value, secrets) as T;
  if (value === null || typeof value !== 'object') return value;
  const root: { value: unknown } = { value: Array.isArray(value) ? [] : {} };
  const work: Array<[source: unknown, target: Record<string, unknown> | unknown[]]> = [
    [value, root.value as Record<string, unknown>],
  ];
  while (work.length > 0) {
    const [source, target] = work.pop() as [unknown, Record<string, unknown>];
    for (const [key, item] of Object.entries(source as Record<string, unknown>)) {
      const name = Array.isArray(target) ? key : redactText(key, secrets);
      if (typeof item === 'string') target[name] = redactText(item, secrets);
      else if (item !== null && typeof item === 'object') {
        const copy = Array.isArray(item) ? [] : {};
        target[name] = copy;
        work.push([item, copy as Record<string, unknown>]);
      } else target[name] = item;
    }
  }
  return root.value as T;
}

/**
 * An EventSink (whose `secretsOf` is a lookup in memory, which does not throw) that replaces the secret values of the event's installation (its environment and header
 * values, and the OAuth tokens handed to its calls) before the event goes anywhere: request logs
 * (`mcp.tool.executed`: parameters, response, error), server logs (`mcp.server.logs`), status messages
 * and every other event, whatever an upstream server echoed back. Events name their installation as
 * `installation_id` or `server_id`; an event of no installation is passed on as it is.
 */
export function createRedactingEventSink(
  inner: EventSink,
  secretsOf: (installationId: string) => readonly string[],
): EventSink {
  return {
    emit<T extends SatelliteEventType>(type: T, data: SatelliteEventData<T>) {
      const named = data as { installation_id?: unknown; server_id?: unknown };
      const id = typeof named.installation_id === 'string' ? named.installation_id : named.server_id;
      if (typeof id !== 'string') return inner.emit(type, data);
      inner.emit(type, redactValue(data, secretsOf(id)));
    },
  };
}
