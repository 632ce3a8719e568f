import { RequestOne } from '@nats-io/nats-core/internal';

interface RequestOneInternals {
  timer?: { cancel(): void };
  deferred: { resolve(value: unknown): void };
  mux: { cancel(request: unknown): void };
  resolver(err: Error | null, msg: unknown): void;
  cancel(err?: Error): void;
}

let applied: boolean | undefined;

/**
 * Every JetStream publish is a request, and nats.js (3.3–3.4) settles a request's
 * reply through `RequestOne.resolver`, which ends with `cancel()`. That rejects the
 * promise it has just resolved (a no-op) with a `new RequestError("cancelled")`, so
 * each publish builds an Error and captures its stack: the largest single item of
 * the gateway's CPU profile per collected event on JetStream. The success path is replaced here by the same steps without that
 * Error: stop the timer, resolve, leave the inbox's table. Failures keep the
 * library's own path.
 *
 * Applied once, and only to the code it was written against (checked by its text):
 * with another version of the library this does nothing and says so (returns false).
 */
export function settleNatsRequestsWithoutError(): boolean {
  if (applied !== undefined) return applied;
  const proto = RequestOne.prototype as unknown as RequestOneInternals;
  const expected =
    /this\.deferred\.resolve\(msg\);\s*\}\s*this\.cancel\(\);\s*\}$/.test(proto.resolver.toString()) &&
    /this\.deferred\.reject\(err \? err : new errors_1\.RequestError\("cancelled"\)\)/.test(proto.cancel.toString());
  if (!expected) return (applied = false);
  const libraryResolver = proto.resolver;
  proto.resolver = function settle(this: RequestOneInternals, err: Error | null, msg: unknown): void {
    if (err) return libraryResolver.call(this, err, msg);
    this.timer?.cancel();
    this.deferred.resolve(msg);
    this.mux.cancel(this);
  };
  return (applied = true);
}
