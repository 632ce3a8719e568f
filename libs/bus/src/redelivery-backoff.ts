/**
 * Delay before redelivering a message whose handler threw. Immediate retries would
 * burn through maxDeliver in milliseconds during a short outage of whatever the
 * handler writes to (and then drop the message), so retries back off exponentially:
 * 250 ms, 500 ms, 1 s, ... capped at 30 s.
 */
export type RedeliveryBackoff = (deliveryCount: number) => number;

export const defaultRedeliveryBackoff: RedeliveryBackoff = (deliveryCount) => Math.min(250 * 2 ** Math.max(0, deliveryCount - 1), 30_000);
