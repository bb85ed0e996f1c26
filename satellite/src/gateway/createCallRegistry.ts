/**
 * Calls in flight that something other than their own request may have to stop: a client's
 * `notifications/cancelled` names a call by its request id, the end of a session or of the endpoint
 * stops all of them. A client may reuse an id while a call with it still runs, so an id can name
 * several calls, and stopping it stops each.
 */
export function createCallRegistry() {
  const byId = new Map<string | number, Set<AbortController>>();
  let count = 0;
  return {
    /** A new call's stop: aborted by `stop(id)` or `stopAll()` until `end` is called. */
    start(id: string | number): AbortController {
      const controller = new AbortController();
      let calls = byId.get(id);
      if (!calls) {
        calls = new Set();
        byId.set(id, calls);
      }
      calls.add(controller);
      count++;
      return controller;
    },
    end(id: string | number, controller: AbortController): void {
      const calls = byId.get(id);
      if (!calls?.delete(controller)) return;
      count--;
      if (calls.size === 0) byId.delete(id);
    },
    stop(id: string | number, reason: Error): void {
      for (const controller of byId.get(id) ?? []) controller.abort(reason);
    },
    stopAll(reason: Error): void {
      for (const calls of byId.values()) for (const controller of calls) controller.abort(reason);
    },
    /** How many calls are in flight. */
    size: () => count,
  };
}

export type CallRegistry = ReturnType<typeof createCallRegistry>;
