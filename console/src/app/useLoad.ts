import { type DependencyList, useCallback, useEffect, useState } from 'react';
import { ApiError } from '../api/client.ts';

export type Loaded<T> = {
  data: T | undefined;
  error: ApiError | undefined;
  loading: boolean;
  reload: () => void;
  /** Replaces the data in place, after a change the page made itself. */
  set: (update: (current: T | undefined) => T | undefined) => void;
};

const asApiError = (error: unknown) =>
  error instanceof ApiError ? error : new ApiError(0, 'internal', String((error as Error)?.message ?? error), {});

/** Loads data for a page and reloads it when `deps` change or on demand; a stale answer is dropped. */
export function useLoad<T>(load: () => Promise<T>, deps: DependencyList): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: ApiError; loading: boolean }>({ loading: true });
  const [round, setRound] = useState(0);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the caller's deps decide when to load again
  useEffect(() => {
    let current = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => current && setState({ data, loading: false }),
      (error: unknown) => current && setState({ error: asApiError(error), loading: false }),
    );
    return () => {
      current = false;
    };
  }, [...deps, round]);
  const reload = useCallback(() => setRound((r) => r + 1), []);
  const set = useCallback(
    (update: (current: T | undefined) => T | undefined) => setState((s) => ({ ...s, data: update(s.data) })),
    [],
  );
  return { data: state.data, error: state.error, loading: state.loading, reload, set };
}

/** Runs an action (a form's submit): its pending state and its error, cleared on the next run. */
export function useAction<A extends unknown[], R>(action: (...args: A) => Promise<R>) {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<ApiError | undefined>();
  const run = useCallback(
    async (...args: A): Promise<R | undefined> => {
      setPending(true);
      setError(undefined);
      try {
        return await action(...args);
      } catch (caught) {
        setError(asApiError(caught));
        return undefined;
      } finally {
        setPending(false);
      }
    },
    [action],
  );
  return { run, pending, error, clearError: () => setError(undefined) };
}
