import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export interface IdleGcOptions {
  /** IDLE_GC_AFTER_MS: how long the event loop must have been quiet after work */
  idleMs: number;
  /** how often the event loop's utilisation is read */
  checkMs?: number;
  /** called after each collection, with the JS heap held before and after (bytes) */
  onCollect?: (heapTotalBefore: number, heapTotalAfter: number) => void;
}

export interface IdleGc {
  /** collections run so far */
  readonly collections: number;
  stop(): void;
}

/** A read above this share of the time busy is work; below QUIET, quiet (timers, scrapes). */
const BUSY_UTILISATION = 0.05;
const QUIET_UTILISATION = 0.02;
/** between the two collections: the first one records the quiet period's low allocation rate */
const SECOND_COLLECTION_DELAY_MS = 1_000;

/**
 * Once the process goes quiet after work, collect the JS heap and give its free pages
 * back. V8 does so by itself only on its memory reducer's schedule, which after an
 * import or a burst of reports came anywhere from 10 s to over a minute later (its
 * young generation of `--max-semi-space-size=64`, 128 MB, stays resident until then).
 *
 * Two full collections a second apart: the first records the quiet period, so the
 * second sees a low allocation rate and may shrink the young generation too (V8 does
 * when the rate is low but not nil; `npm run bench -- "after work"` shows it). Run once per
 * quiet period, only after a read that was busy; the pause lands when nothing waits.
 * This isolate only: ingest's worker threads (INGEST_WORKERS) keep V8's own schedule.
 */
export function startIdleGc(options: IdleGcOptions): IdleGc {
  const collect = exposedGc();
  const checkMs = options.checkMs ?? 2_000;
  let last = performance.eventLoopUtilization();
  let worked = true; // starting up is work
  let quietMs = 0;
  let collections = 0;
  let second: NodeJS.Timeout | undefined;

  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const utilisation = performance.eventLoopUtilization(now, last).utilization;
    last = now;
    // the collections' own pauses are not work
    if (second) return;
    if (utilisation > BUSY_UTILISATION) worked = true;
    quietMs = utilisation < QUIET_UTILISATION ? quietMs + checkMs : 0;
    if (!worked || quietMs < options.idleMs) return;
    worked = false;
    collections += 1;
    const before = process.memoryUsage().heapTotal;
    collect();
    second = setTimeout(() => {
      collect();
      second = undefined;
      last = performance.eventLoopUtilization();
      options.onCollect?.(before, process.memoryUsage().heapTotal);
    }, SECOND_COLLECTION_DELAY_MS);
    second.unref();
  }, checkMs);
  timer.unref();

  return {
    get collections() {
      return collections;
    },
    stop() {
      clearInterval(timer);
      clearTimeout(second);
    },
  };
}

/**
 * V8's `gc()` (without `--expose-gc` on the command line: Node's documented way), made
 * compacting. A plain full collection frees dead objects but keeps every page that still
 * holds a live one: after a workload the old generation held twice the bytes it used
 * (`npm run bench -- "after work"`). With `--compact-on-every-full-gc` on for the call,
 * V8 moves the survivors together and gives the emptied pages back; it is read when a
 * collection starts, and turned off again at once so V8's own collections stay as they were.
 */
function exposedGc(): () => void {
  const gc = (globalThis as { gc?: () => void }).gc ?? exposeGc();
  return () => {
    setFlagsFromString('--compact-on-every-full-gc');
    try {
      gc();
    } finally {
      setFlagsFromString('--no-compact-on-every-full-gc');
    }
  };
}

function exposeGc(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}
