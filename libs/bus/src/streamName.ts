import type { Bus } from './createBus.ts';

/** A stream's name on the server: stream names cannot hold dots, so the prefix joins with `_`. */
export function streamName(bus: Bus, name: string): string {
  return bus.prefix ? `${bus.prefix}_${name}` : name;
}

/** A durable consumer's name on the server, prefixed like streams so test runs never share one. */
export function durableName(bus: Bus, name: string): string {
  return bus.prefix ? `${bus.prefix}_${name}` : name;
}
