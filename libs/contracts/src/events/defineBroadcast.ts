import type { z } from 'zod';
import type { ProcessName } from '../processes.ts';

/**
 * A message every replica of its listeners receives at once (core NATS, no queue group, not stored):
 * cache coherence between replicas, "setup has completed". What is missed while disconnected is not
 * replayed, so every listener also recovers on reconnection. With `reply`, each listener answers and
 * the sender collects the answers (the gateway replicas confirming a session eviction).
 */
export type BroadcastDef<P extends z.ZodType = z.ZodType, R extends z.ZodType | undefined = z.ZodType | undefined> = {
  /** Subject before the deployment prefix. */
  readonly subject: string;
  readonly payload: P;
  readonly reply?: R;
  readonly producer: ProcessName;
  readonly listeners: readonly ProcessName[];
  readonly description: string;
};

export type BroadcastPayloadOf<B extends BroadcastDef> = z.output<B['payload']>;

export function defineBroadcast<P extends z.ZodType, R extends z.ZodType | undefined = undefined>(
  def: BroadcastDef<P, R>,
): BroadcastDef<P, R> {
  if (!/^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/.test(def.subject)) throw new Error(`invalid subject: ${def.subject}`);
  return def;
}
