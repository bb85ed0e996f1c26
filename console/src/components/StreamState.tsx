import type { StreamState as State } from '../app/useEventStream.ts';

const words: Record<State, string> = {
  connecting: 'connecting…',
  live: 'live',
  reconnecting: 'reconnecting…',
  closed: 'stream closed: reload the page',
};

/** Whether a live view is live. */
export function StreamState({ state }: { state: State }) {
  return (
    <span className={`stream-state stream-${state}`} role="status">
      {words[state]}
    </span>
  );
}
