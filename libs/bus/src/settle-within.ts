/**
 * Waits for the given promises to settle, but no longer than `ms`. Used by `stop()`:
 * in-flight handlers get to finish, yet a handler that hangs cannot block shutdown
 * forever. Waiting past the ack wait buys nothing anyway: by then the message is
 * redelivered elsewhere.
 */
export async function settleWithin(promises: Iterable<Promise<unknown>>, ms: number): Promise<void> {
  const all = Promise.allSettled(promises);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
    timer.unref();
  });
  await Promise.race([all, timeout]);
  clearTimeout(timer);
}
