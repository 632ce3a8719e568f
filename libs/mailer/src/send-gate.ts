/**
 * Admits sends until the mailer is closed and lets `close()` wait for the sends already
 * admitted, so a shutdown neither drops a login code half-sent nor accepts new ones.
 */
export class SendGate {
  private readonly inFlight = new Set<Promise<unknown>>();
  private closed = false;

  constructor(private readonly name: string) {}

  get isClosed(): boolean {
    return this.closed;
  }

  /** Runs `work` unless closed; the returned promise settles exactly as `work` does. */
  run<T>(work: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error(`${this.name} is closed`));
    const promise = work();
    this.inFlight.add(promise);
    // The tracked copy must not raise an unhandled rejection; the caller handles `promise`.
    promise.then(
      () => this.inFlight.delete(promise),
      () => this.inFlight.delete(promise),
    );
    return promise;
  }

  /** Refuses new work and resolves once everything admitted so far has settled. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([...this.inFlight]);
  }
}
