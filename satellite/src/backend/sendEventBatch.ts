import { type EventBatchReply, eventBatchReply, type SatelliteEvent } from '@orbital/contracts';
import type { SendOutcome } from './createEventQueue.ts';
import type { SatelliteApi } from './createSatelliteApi.ts';

/** POST /api/satellites/:id/events, its reply read into the queue's outcomes by HTTP status. */
export function createEventBatchSender(api: SatelliteApi) {
  return async (events: SatelliteEvent[], signal: AbortSignal): Promise<SendOutcome> => {
    const result = await api.call<EventBatchReply>('POST', '/events', { events }, signal);
    switch (result.kind) {
      case 'ok': {
        const reply = eventBatchReply.safeParse(result.data);
        // A 2xx the satellite cannot read still means the backend took the batch.
        if (!reply.success) return { kind: 'sent', rejected: [] };
        return {
          kind: 'sent',
          rejected: reply.data.results.flatMap((r) =>
            r.status === 'rejected'
              ? [{ index: r.index, id: r.id, message: `${r.error.code}: ${r.error.message}` }]
              : [],
          ),
        };
      }
      case 'http':
        if (result.status === 401) return { kind: 'unauthorized' };
        if (result.status === 429) return { kind: 'rate_limited', retryAfterMs: result.retryAfterMs };
        if (result.status === 400 || result.status === 413 || result.status === 422) {
          return { kind: 'refused', status: result.status, message: result.message };
        }
        // 5xx, and statuses that say nothing about the events themselves (403, 404, 408): keep them.
        return { kind: 'server_error', status: result.status, message: result.message };
      case 'timeout':
        return { kind: 'unreachable', message: 'timeout' };
      case 'network':
        return { kind: 'unreachable', message: result.message };
      case 'aborted':
        return { kind: 'aborted' };
    }
  };
}
