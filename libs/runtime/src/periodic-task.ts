import { inUnsampledRoot, type Logger } from '@sightline/telemetry';

/**
 * Runs `task` every `intervalMs` in the background (janitors, sweeps): a slow run is
 * never stacked under the next tick, a failure is logged and retried next time, and
 * the timer never keeps the process alive. `stop()` waits for a run in progress.
 * A run is housekeeping, not a trace of its own (an unsampled root).
 */
export function startPeriodicTask(name: string, intervalMs: number, task: () => Promise<void>, log: Logger): { stop(): Promise<void> } {
  let running: Promise<void> | undefined;
  const timer = setInterval(() => {
    if (running) return;
    running = inUnsampledRoot(task)
      .catch((error: unknown) => log.warn({ err: error, task: name }, 'periodic task failed'))
      .finally(() => (running = undefined));
  }, intervalMs);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
