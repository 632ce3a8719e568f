import { signal } from '@preact/signals';
import { useEffect, useState } from 'preact/hooks';
import { listAnnotations, type Annotation } from '../api/annotations.js';
import type { ApiFailure } from '../api/client.js';
import { client } from './store.js';

/** Bumped by every write from this page: the graph's notes are read again. */
export const annotationsVersion = signal(0);

/** The notes of the window [start, end] (site-local days), read again after a write. */
export function useAnnotations(start: string, end: string): { notes: Annotation[]; error?: ApiFailure } {
  const version = annotationsVersion.value;
  const [state, setState] = useState<{ notes: Annotation[]; error?: ApiFailure }>({ notes: [] });
  useEffect(() => {
    const abort = new AbortController();
    listAnnotations(client().source, start, end, abort.signal).then(
      (notes) => setState({ notes }),
      (error: unknown) => {
        if (!abort.signal.aborted) setState({ notes: [], error: error as ApiFailure });
      },
    );
    return () => abort.abort();
  }, [start, end, version]);
  return state;
}
