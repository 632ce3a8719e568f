import type { Logger } from '@sightline/telemetry';

export interface ShutdownPhases {
  /** Runs one named step of a shutdown, timed; phases may overlap (services stop side by side). */
  run<T>(name: string, step: () => Promise<T>): Promise<T>;
  /** Stops the watchdog; returns each finished phase's duration in ms, in the order they ended. */
  done(): Array<{ phase: string; ms: number }>;
}

/** For a stop nobody times (a failed start's cleanup, a bench): each step just runs. */
export const UNTIMED_PHASES: ShutdownPhases = { run: (_name, step) => step(), done: () => [] };

/**
 * Times the phases of a shutdown. A phase that has not ended after `watchdogMs` is named in a
 * warning (then every `watchdogMs` again), so a stop that hangs says where instead of only timing out.
 */
export function shutdownPhases(log: Logger, watchdogMs: number): ShutdownPhases {
  const started = performance.now();
  const pending = new Map<string, number>();
  const finished: Array<{ phase: string; ms: number }> = [];
  const watchdog = setInterval(() => {
    if (pending.size === 0) return;
    const now = performance.now();
    log.warn(
      {
        elapsed_ms: Math.round(now - started),
        waiting_on: [...pending].map(([phase, since]) => `${phase} (${Math.round(now - since)} ms)`),
        finished: finished.map((f) => `${f.phase} ${f.ms} ms`),
      },
      'shutdown is slow',
    );
  }, watchdogMs);
  watchdog.unref();
  return {
    async run(name, step) {
      const since = performance.now();
      pending.set(name, since);
      try {
        return await step();
      } finally {
        pending.delete(name);
        finished.push({ phase: name, ms: Math.round(performance.now() - since) });
      }
    },
    done() {
      clearInterval(watchdog);
      return finished;
    },
  };
}
