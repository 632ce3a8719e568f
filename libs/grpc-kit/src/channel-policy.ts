/**
 * How a client channel spreads and retries its calls, as a gRPC service config.
 *
 * - `round_robin`: the channel keeps a connection to every address its target resolves
 *   to (a headless Service's `dns:///name:port` gives one A record per ready pod) and
 *   takes turns; `pick_first`, gRPC's default, would pin each caller to one replica.
 * - Reads are retried on UNAVAILABLE or CANCELLED (a replica killed or shut down mid-call): the
 *   retry goes to another ready replica. Only methods named in `retryableMethods`, since
 *   a write cut after its commit would run twice. A few quick attempts; a longer outage
 *   is the caller's to handle.
 * - Retry throttling stops retries while most calls of a channel fail (every replica
 *   down), so retries never multiply the load on a service that is struggling.
 */
export interface ChannelPolicy {
  /** method paths (`/package.Service/Method`) safe to run twice: reads without side effects */
  retryableMethods: readonly string[];
  /**
   * `pin`: one replica per channel (pick_first), for a service whose replicas each hold
   * state of their own that later calls must reach; default `spread` (round_robin)
   */
  balance?: 'spread' | 'pin';
  /**
   * least time between two DNS resolutions of the target. A client re-resolves when a
   * connection ends (a server's max connection age, a replica gone), so a new replica is
   * found within the connection age plus this. gRPC's default is 30 s.
   */
  reresolveMinMs?: number;
}

/**
 * Longest wait between two connection attempts to a replica that is down (gRPC's default
 * grows to 120 s): a restarted service is called again within 5 s of being ready, well
 * inside the gateway's stale window (GATEWAY_STALE_MS) that bridges the restart.
 */
export const MAX_RECONNECT_BACKOFF_MS = 5_000;

/** Attempts of a read, the first one included (grpc-js allows at most 5). */
export const READ_MAX_ATTEMPTS = 4;

/** The `grpc.service_config` JSON of `policy`. */
export function serviceConfigOf(policy: ChannelPolicy): string {
  const name = policy.retryableMethods.map((path) => {
    const [, service, method] = /^\/([^/]+)\/([^/]+)$/.exec(path) ?? [];
    if (!service || !method) throw new Error(`not a gRPC method path: ${path}`);
    return { service, method };
  });
  return JSON.stringify({
    loadBalancingConfig: [policy.balance === 'pin' ? { pick_first: {} } : { round_robin: {} }],
    methodConfig:
      name.length === 0
        ? []
        : [
            {
              name,
              retryPolicy: {
                maxAttempts: READ_MAX_ATTEMPTS,
                // randomised backoffs of up to 50, 100, 200 ms: a retry window of at most 350 ms
                initialBackoff: '0.05s',
                maxBackoff: '0.2s',
                backoffMultiplier: 2,
                // UNAVAILABLE: the replica is gone (killed, unreachable); CANCELLED: it shut down
                // with the call running (its drain's grace ran out). Never the caller's own cancel.
                retryableStatusCodes: ['UNAVAILABLE', 'CANCELLED'],
              },
            },
          ],
    // each failure takes a token, each success gives back 0.1; below half of 50, no retries
    retryThrottling: { maxTokens: 50, tokenRatio: 0.1 },
  });
}
