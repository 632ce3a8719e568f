import type { FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import { ApiError } from '@sightline/errors';

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * Requests per minute per client address, as a token bucket: a client may spend a
 * minute's allowance at once (a page loading its panels), then one request every
 * 60/perMinute seconds. Per gateway replica and in memory: it bounds what one address
 * can make this replica ask of the services, not a shared budget. The oldest addresses
 * are forgotten past `maxClients` (a forgotten one starts with a full bucket).
 */
export class ClientRateLimit {
  private readonly buckets: LRUCache<string, Bucket>;

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = () => performance.now(),
    maxClients = 100_000,
  ) {
    this.buckets = new LRUCache({ max: maxClients });
  }

  /** Takes one request for `client`: undefined when admitted, else the seconds until the next one would be. */
  take(client: string): number | undefined {
    if (this.perMinute <= 0) return undefined;
    const now = this.now();
    const perMs = this.perMinute / 60_000;
    const known = this.buckets.get(client);
    const tokens = known ? Math.min(this.perMinute, known.tokens + (now - known.at) * perMs) : this.perMinute;
    if (tokens >= 1) {
      this.buckets.set(client, { tokens: tokens - 1, at: now });
      return undefined;
    }
    this.buckets.set(client, { tokens, at: now });
    return Math.max(1, Math.ceil((1 - tokens) / perMs / 1000));
  }
}

/** 429 `rate_limited` with Retry-After once the client address (trusted-proxy-aware `request.ip`) spent its allowance. */
export function limitClient(request: FastifyRequest, rateLimit: ClientRateLimit): void {
  const retryAfterSeconds = rateLimit.take(request.ip);
  if (retryAfterSeconds !== undefined) {
    throw new ApiError('rate_limited', 'Too many requests from this address to public dashboards; retry after the time in Retry-After.', { retryAfterSeconds });
  }
}
