import { randomBytes } from 'node:crypto';
import type { Db } from '@sightline/db';
import type { Clock } from '@sightline/runtime';
import { previousUtcDay, utcDay } from './visitor-hash.js';

/** Where the visitor hash's salts come from: DailySalts, or a pipeline worker asking its main thread's. */
export interface SaltSource {
  /** The salt of `day` ('YYYY-MM-DD'), or null when the day is before yesterday. */
  forDay(day: string): Promise<Buffer | null>;
}

/**
 * The salts of the visitor hash, one per UTC day, shared by every replica through
 * PostgreSQL. The first replica to need a day inserts a random salt; the others'
 * inserts do nothing (ON CONFLICT) and everybody reads the winner. Only today's and
 * yesterday's exist: older days are deleted, and asking for one answers null.
 */
export class DailySalts implements SaltSource {
  private readonly cache = new Map<string, Promise<Buffer>>();
  /** the rotation of one day, shared: concurrent first events must not each send a DELETE */
  private pruning: { day: string; done: Promise<void> } | undefined;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  /** The salt of `day` ('YYYY-MM-DD'), or null when the day is before yesterday. */
  async forDay(day: string): Promise<Buffer | null> {
    const today = utcDay(this.clock());
    const yesterday = previousUtcDay(today);
    if (day < yesterday) return null;
    if (this.pruning?.day !== today) {
      const pruning = { day: today, done: this.prune(yesterday) };
      this.pruning = pruning;
      // a failed rotation is tried again by the next event
      pruning.done.catch(() => {
        if (this.pruning === pruning) this.pruning = undefined;
      });
    }
    await this.pruning!.done;
    let salt = this.cache.get(day);
    if (!salt) {
      salt = this.load(day);
      this.cache.set(day, salt);
      salt.catch(() => this.cache.delete(day));
    }
    return salt;
  }

  private async load(day: string): Promise<Buffer> {
    await this.db.query('INSERT INTO ingest.daily_salts (day, salt) VALUES ($1, $2) ON CONFLICT (day) DO NOTHING', [day, randomBytes(32)]);
    const { rows } = await this.db.query<{ salt: Buffer }>('SELECT salt FROM ingest.daily_salts WHERE day = $1', [day]);
    const salt = rows[0]?.salt;
    if (!salt) throw new Error(`salt of ${day} vanished right after its insert`);
    return Buffer.from(salt);
  }

  /** Rotation at 00:00 UTC: drop every salt older than yesterday, here and in the cache. */
  private async prune(yesterday: string): Promise<void> {
    await this.db.query('DELETE FROM ingest.daily_salts WHERE day < $1', [yesterday]);
    for (const day of this.cache.keys()) if (day < yesterday) this.cache.delete(day);
  }
}
