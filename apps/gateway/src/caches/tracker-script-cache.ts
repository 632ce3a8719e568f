import { LRUCache } from 'lru-cache';

export interface ServedScript {
  javascript: string;
  etag: string;
}

/** How long a replica reuses a built script before asking again (a burst of page loads costs one build). */
const LOCAL_CACHE_MS = 5_000;

/**
 * Built tracker scripts by tracking key, per replica. A tracking change made
 * through this replica forgets the site's entry at once; other replicas pick the
 * change up within LOCAL_CACHE_MS, browsers and CDNs within the script's max-age.
 */
export class TrackerScriptCache {
  private readonly entries = new LRUCache<string, ServedScript>({ max: 10_000, ttl: LOCAL_CACHE_MS });

  get(trackingKey: string): ServedScript | undefined {
    return this.entries.get(trackingKey);
  }

  set(trackingKey: string, script: ServedScript): void {
    this.entries.set(trackingKey, script);
  }

  forget(trackingKey: string): void {
    this.entries.delete(trackingKey);
  }
}
