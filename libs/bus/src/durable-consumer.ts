import type { Bus, ConsumeOptions, ConsumeSubject, SubjectCatalogue, Subscription } from './bus.js';
import type { SubjectPayloads } from './streams.js';

export interface DurableConsumerRetry {
  /** First wait after a failed start; doubles up to `maxDelayMs`. Default 5 s. */
  firstDelayMs?: number;
  /** Default 60 s. */
  maxDelayMs?: number;
  /** Told about each failed start (the service logs it). */
  onRetry?: (error: unknown, delayMs: number) => void;
}

export interface DurableConsumer {
  /** Resolves once the consumer runs (never rejects; stays pending while start keeps failing). */
  readonly started: Promise<void>;
  /** Stops retrying, then stops the consumer (in-flight handlers finish first). */
  stop(): Promise<void>;
}

/**
 * Starts a durable consumer and, if that fails (the stream is not there yet because
 * its owner has not started, NATS is still coming up), keeps trying in the
 * background with a doubling delay instead of failing the service. Every service's
 * durable consumer starts through this, so start-up order between services never
 * matters.
 */
export function startDurableConsumer<P extends SubjectCatalogue = SubjectPayloads, F extends ConsumeSubject<P> = ConsumeSubject<P>>(
  bus: Bus<P>,
  options: ConsumeOptions<P[F], F>,
  retry: DurableConsumerRetry = {},
): DurableConsumer {
  const firstDelayMs = retry.firstDelayMs ?? 5_000;
  const maxDelayMs = retry.maxDelayMs ?? 60_000;
  let subscription: Subscription | undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let attempt: Promise<void> | undefined;
  let markStarted!: () => void;
  const started = new Promise<void>((resolve) => (markStarted = resolve));

  const tryStart = (delayMs: number): void => {
    attempt = (async () => {
      try {
        const sub = await bus.consume<F>(options);
        if (stopped) {
          await sub.stop();
          return;
        }
        subscription = sub;
        markStarted();
      } catch (error) {
        if (stopped) return;
        retry.onRetry?.(error, delayMs);
        timer = setTimeout(() => tryStart(Math.min(delayMs * 2, maxDelayMs)), delayMs);
        timer.unref();
      }
    })();
  };
  tryStart(firstDelayMs);

  return {
    started,
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await attempt;
      await subscription?.stop();
    },
  };
}
