import type { FastifyInstance } from 'fastify';
import ipaddr from 'ipaddr.js';
import type { Logger } from '@sightline/telemetry';
import { AccessLogThrottle } from './access-log-throttle.js';

/** Ranges a reverse proxy in front of the gateway (an ingress controller's pod, a sidecar, a local nginx) connects from. */
const PROXY_RANGES = new Set(['private', 'uniqueLocal', 'loopback', 'linkLocal', 'carrierGradeNat']);
/** One warning, then at most one per window with the count of the requests since. */
const WARNING_WINDOW_MS = 10 * 60_000;

function isProxyAddress(address: string): boolean {
  try {
    return PROXY_RANGES.has(ipaddr.process(address).range());
  } catch {
    return false;
  }
}

/**
 * Registered while TRUSTED_PROXIES is empty. A request from a private address that
 * carries X-Forwarded-For is almost surely a proxy forwarding a visitor: without
 * trusting it, every visitor behind it counts as the proxy (one visitor, no country).
 * The warning names the proxy's own (private) address, which is what to trust, and
 * never the forwarded one: visitor addresses are not logged.
 */
export function registerUntrustedProxyWarning(app: FastifyInstance, log: Logger, now: () => number = Date.now): void {
  const throttle = new AccessLogThrottle(1, WARNING_WINDOW_MS, now);
  // callback style, no promise: the tracker endpoint passes here
  app.addHook('onRequest', (request, _reply, done) => {
    if (request.headers['x-forwarded-for'] !== undefined) {
      const proxy = request.socket.remoteAddress;
      if (proxy !== undefined && isProxyAddress(proxy)) {
        const admitted = throttle.admit('x-forwarded-for', 0);
        if (admitted) {
          log.warn(
            { proxy_address: proxy, untrusted_forwarded_requests_since_last_warning: admitted.suppressed },
            'requests from a private address carry X-Forwarded-For, but TRUSTED_PROXIES is empty: every visitor behind that proxy counts as the proxy (one visitor, no country). Set TRUSTED_PROXIES to the proxy’s address or CIDR (Helm chart: ingress.trustedProxies)',
          );
        }
      }
    }
    done();
  });
}
