import type { CollectedEvent } from '@sightline/events-schema';

/**
 * Sharding of collected tracker events. The gateway publishes each event to
 * `events.collected.<shard>`; each shard has exactly one durable consumer (the
 * EVENTS_WQ stream is a work queue), so ingest replicas split the shards between
 * them and one visitor's events always reach the same replica (session state stays
 * local). The shard count is fixed per deployment (`EVENT_SHARDS`): changing it
 * moves visitors between shards, so drain the stream first (stop the gateways,
 * let ingest empty EVENTS_WQ, then restart everything with the new count).
 */
export const DEFAULT_EVENT_SHARDS = 8;
/** Upper bound of EVENT_SHARDS: one durable per shard. */
export const MAX_EVENT_SHARDS = 1024;

/** Every collected-event subject (the filter of a consumer taking all shards). */
export const COLLECTED_FILTER = 'events.collected.*';

export type CollectedSubject = `events.collected.${number}`;

/**
 * The subject strings, made once: the bus looks each publish's subject up in maps
 * (its route, its metric series), and a string made per event would be hashed per event.
 */
const COLLECTED_SUBJECTS: CollectedSubject[] = [];

export function collectedSubject(shard: number): CollectedSubject {
  if (!Number.isSafeInteger(shard) || shard < 0 || shard >= MAX_EVENT_SHARDS) throw new RangeError(`shard out of range: ${shard}`);
  return (COLLECTED_SUBJECTS[shard] ??= `events.collected.${shard}`);
}

/**
 * The shard of an event: FNV-1a (32 bit) of the tracking key and the visitor —
 * the session marker when the tracker sent one, else IP and User-Agent — modulo
 * `shardCount`. Pure and stable across processes and versions: changing it is a
 * resharding (see above).
 */
export function collectedEventShard(event: Pick<CollectedEvent, 'k' | 's' | 'ip' | 'ua'>, shardCount: number): number {
  if (!Number.isSafeInteger(shardCount) || shardCount < 1 || shardCount > MAX_EVENT_SHARDS) throw new RangeError(`shard count out of range: ${shardCount}`);
  // Prefixes keep a session marker from ever colliding with an "ip\nua" string.
  const visitor = event.s ? `s:${event.s}` : `v:${event.ip}\n${event.ua}`;
  return fnv1a32(`${event.k}\n${visitor}`) % shardCount;
}

const encoder = new TextEncoder();

/** FNV-1a, 32 bit, over the UTF-8 bytes. */
export function fnv1a32(text: string): number {
  let hash = 0x811c9dc5;
  // ASCII (nearly every key, marker, IP and UA): the UTF-16 code units are the UTF-8
  // bytes, so hash them without encoding (the same answer, no allocation per event)
  let ascii = true;
  for (let i = 0; i < text.length; i += 1) {
    const unit = text.charCodeAt(i);
    if (unit > 0x7f) {
      ascii = false;
      break;
    }
    hash ^= unit;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  if (ascii) return hash >>> 0;
  hash = 0x811c9dc5;
  for (const byte of encoder.encode(text)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}
