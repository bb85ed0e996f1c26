import { randomBytes } from 'node:crypto';
import { createRequestStateCodec } from '@modelcontextprotocol/server';

/** Where a waiting call lives, as its `requestState` says: its id, the process holding it and that process's address. */
export type CallRoute = { callId: string; instance: string; replica: string | null };

/**
 * The `requestState` of a 2026-07-28 call waiting for its client's input, and the way back to it.
 *
 * A call that asked its client for input waits in the process that runs it: its upstream request is
 * in flight there (over a stdio process of that replica, or a remote session it opened). Behind a load
 * balancer without affinity the client's retry may reach any replica, so the state carries a routing
 * hint: the address of the replica holding the call (`SATELLITE_REPLICA_URL`), signed with a secret
 * every replica shares (`SATELLITE_REPLICA_SECRET`, HMAC-SHA256 through the SDK's request-state
 * codec), and expiring with the call. A replica that receives a retry for another forwards it there;
 * since only a replica can sign a hint, no client can make a replica send requests anywhere else.
 * Without a secret each process signs with a key of its own, and without an address there is nowhere
 * to forward to: the retry is then refused with what to configure.
 *
 * `instanceTag` names this process in the session ids it issues, so a 2025 session id presented to
 * another replica is recognised as such (sessions cannot move).
 */
export function createCallRouting(options: { replicaUrl?: string; secret?: string; ttlMs: number }) {
  const codec = createRequestStateCodec({
    key: options.secret ?? randomBytes(32),
    ttlSeconds: Math.max(1, Math.ceil(options.ttlMs / 1000)),
  });
  const self = options.replicaUrl ?? null;
  const instanceTag = randomBytes(6).toString('base64url');
  return {
    /** This replica's address for forwarded retries, or null when it has none. */
    self,
    /** Whether replicas share a secret, so that one can verify another's routing hints. */
    shared: options.secret !== undefined,
    instanceTag,
    mint: (callId: string): Promise<string> => codec.mint({ c: callId, i: instanceTag, r: self }),
    /** Whether a route names a call of this process. */
    isLocal: (route: CallRoute): boolean => route.instance === instanceTag,
    /** The route a state names, or undefined when it is not a state of these replicas (forged, expired). */
    async read(state: string): Promise<CallRoute | undefined> {
      let payload: unknown;
      try {
        // No binding callback is configured, so the codec reads no request context.
        payload = await codec.verify(state, undefined as never);
      } catch {
        return undefined;
      }
      const { c, i, r } = (payload ?? {}) as { c?: unknown; i?: unknown; r?: unknown };
      if (typeof c !== 'string' || typeof i !== 'string' || (r !== null && typeof r !== 'string')) return undefined;
      return { callId: c, instance: i, replica: r };
    },
  };
}

export type CallRouting = ReturnType<typeof createCallRouting>;
