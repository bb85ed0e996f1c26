import { useEffect, useRef, useState } from 'react';

export type StreamState = 'connecting' | 'live' | 'reconnecting' | 'closed';

/**
 * Follows one SSE stream of the API: `snapshot` (the REST twin's answer) then `update` events. The
 * browser reconnects by itself and resends Last-Event-ID; a stream the server refuses (the session
 * ended, access withdrawn) is closed and reported as such. `url` null means no stream.
 */
export function useEventStream<S, U>(
  url: string | null,
  handlers: { snapshot: (data: S) => void; update: (data: U) => void },
): StreamState {
  const [state, setState] = useState<StreamState>('connecting');
  const latest = useRef(handlers);
  latest.current = handlers;

  useEffect(() => {
    if (!url) return undefined;
    setState('connecting');
    const source = new EventSource(url, { withCredentials: true });
    const read = (event: Event) => JSON.parse((event as MessageEvent<string>).data) as unknown;
    source.addEventListener('snapshot', (event) => {
      setState('live');
      latest.current.snapshot(read(event) as S);
    });
    source.addEventListener('update', (event) => latest.current.update(read(event) as U));
    source.addEventListener('open', () => setState('live'));
    source.addEventListener('error', () =>
      setState(source.readyState === EventSource.CLOSED ? 'closed' : 'reconnecting'),
    );
    return () => source.close();
  }, [url]);
  return state;
}
