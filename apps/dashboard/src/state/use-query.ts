import { useEffect, useState } from 'preact/hooks';
import { ApiFailure, type QueryAnswer, type QueryRequest } from '../api/client.js';
import { client, reportPollFailure } from './store.js';

export interface QueryState<T> {
  data: T | undefined;
  error: ApiFailure | undefined;
  loading: boolean;
}

/**
 * Runs a request whenever its JSON changes (null: nothing to run), aborting the one
 * in flight; keeps the last data while the next loads (no flicker on refresh).
 * `refresh` changes re-run the same request (realtime polling).
 */
export function useAsync<T>(key: string | null, run: (signal: AbortSignal) => Promise<T>, refresh = 0): QueryState<T> {
  const [state, setState] = useState<QueryState<T>>({ data: undefined, error: undefined, loading: key !== null });
  useEffect(() => {
    if (key === null) {
      setState({ data: undefined, error: undefined, loading: false });
      return;
    }
    const controller = new AbortController();
    setState((s) => ({ ...s, loading: true }));
    run(controller.signal).then(
      (data) => {
        if (!controller.signal.aborted) setState({ data, error: undefined, loading: false });
      },
      (error: unknown) => {
        if (controller.signal.aborted) return;
        const failure =
          error instanceof ApiFailure ? error : new ApiFailure(0, 'client_error', error instanceof Error ? error.message : String(error), undefined);
        if (refresh !== 0) reportPollFailure(failure);
        setState({ data: undefined, error: failure, loading: false });
      },
    );
    return () => controller.abort();
  }, [key, refresh]);
  return state;
}

export function useQuery(request: QueryRequest | null, refresh = 0): QueryState<QueryAnswer> {
  return useAsync(request ? JSON.stringify(request) : null, (signal) => client().query(request!, signal), refresh);
}
