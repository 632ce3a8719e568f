import type { Clock } from '@sightline/runtime';
import type { SaltSource } from './daily-salts.js';
import { previousUtcDay, utcDay, visitorHash } from './visitor-hash.js';

/** Ids held per process: a visit's events come close together, so a small memo hits most of them. */
const DEFAULT_MAX_ENTRIES = 20_000;

/**
 * The visitor ids of an event: under its UTC day's salt, then the day before's
 * (so a visit survives midnight); null when its day's salt is gone (the event is
 * stale). Memoised per (day, site, IP, UA): a visitor's later events skip two
 * HMACs and the salt look-ups. The key holds IP and User-Agent in memory only,
 * bounded, like the bus message they came from; nothing of it is written anywhere.
 */
export class VisitorIds {
  private readonly memo = new Map<string, readonly string[]>();
  /** the UTC day the memo was filled on: at 00:00 UTC salts rotate and it starts over */
  private memoDay = '';

  constructor(
    private readonly salts: SaltSource,
    private readonly clock: Clock,
    private readonly maxEntries = DEFAULT_MAX_ENTRIES,
  ) {}

  /** The memoised ids, synchronously (the hot path skips an await); undefined when not memoised. */
  peek(at: number, siteId: number, ip: string, ua: string): readonly string[] | undefined {
    this.rotate();
    return this.memo.get(memoKey(utcDay(at), siteId, ip, ua));
  }

  async of(at: number, siteId: number, ip: string, ua: string): Promise<readonly string[] | null> {
    const known = this.peek(at, siteId, ip, ua);
    if (known) return known;
    const filledOn = this.memoDay;
    const day = utcDay(at);
    const salt = await this.salts.forDay(day);
    if (!salt) return null;
    const previousSalt = await this.salts.forDay(previousUtcDay(day));
    const ids = previousSalt ? [visitorHash(salt, siteId, ip, ua), visitorHash(previousSalt, siteId, ip, ua)] : [visitorHash(salt, siteId, ip, ua)];
    this.rotate();
    // salts rotated while we waited: the day may be stale by now, let the next event ask again
    if (this.memoDay !== filledOn) return ids;
    // cheap bound: start over when full (a miss costs two HMACs, nothing else)
    if (this.memo.size >= this.maxEntries) this.memo.clear();
    this.memo.set(memoKey(day, siteId, ip, ua), ids);
    return ids;
  }

  private rotate(): void {
    const today = utcDay(this.clock());
    if (today === this.memoDay) return;
    this.memo.clear();
    this.memoDay = today;
  }
}

function memoKey(day: string, siteId: number, ip: string, ua: string): string {
  return `${day}\0${siteId}\0${ip}\0${ua}`;
}
