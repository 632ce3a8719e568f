/**
 * Starts the NATS publishes of one event-loop turn together, in the check phase of
 * that turn. nats.js writes whatever its outbound buffer holds once per microtask
 * drain, and every HTTP request runs in a turn of its own, so without this each
 * collected event cost one socket write to the server; started together they
 * share one. Each publish keeps its own promise (its own ack or error) and the
 * order they were asked in.
 */
export class PublishPerTurn {
  private waiting: Array<() => void> = [];

  /** `start` runs later in this turn; the result is its promise's outcome. */
  defer<T>(start: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.waiting.length === 0) setImmediate(() => this.startWaiting());
      this.waiting.push(() => {
        try {
          start().then(resolve, reject);
        } catch (error) {
          reject(error);
        }
      });
    });
  }

  /** Starts every waiting publish now (before the connection drains on close). */
  startWaiting(): void {
    const batch = this.waiting;
    this.waiting = [];
    for (const start of batch) start();
  }
}
