import { LRUCache } from 'lru-cache';
import { SUBJECTS, type Bus, type SubjectPayloads, type Subscription } from '@sightline/bus';
import type { Logger } from '@sightline/telemetry';
import { loadSiteContext, type SiteContextClients } from './load-site-context.js';
import type { TrackedSite } from './tracked-site.js';

export interface SiteContextCacheOptions {
  clients: SiteContextClients;
  bus: Bus;
  log: Logger;
  /** Who holds this cache (e.g. `ingest`), named in its log lines. It subscribes to news and stores nothing on the bus. */
  owner: string;
  /** how long a known site is trusted without news (plan changes arrive only this way); default 60 s */
  ttlMs?: number;
  /** how long an unknown key is remembered as unknown; default 10 s */
  negativeTtlMs?: number;
  /** most keys kept (least recently used go first); default 100 000 */
  maxEntries?: number;
  /** deadline of each gRPC call of a load; default 5 s */
  deadlineMs?: number;
  /** milliseconds, monotonic enough for expiry (tests move it) */
  now?: () => number;
}

interface Entry {
  value: TrackedSite | null;
  expiresAt: number;
}

interface Load {
  promise: Promise<TrackedSite | null>;
  /** learnt once sites answered; until then an invalidation of any site may concern this load */
  siteId?: number;
  /** an invalidation arrived during the load: its answer is handed out but not kept */
  stale: boolean;
}

type SettingsChanged = SubjectPayloads[typeof SUBJECTS.settingsChanged];
type SiteUpdated = SubjectPayloads[typeof SUBJECTS.siteUpdated];
type SiteDeleted = SubjectPayloads[typeof SUBJECTS.siteDeleted];

/** settings.changed kinds that change what counts (tracking and the dashboard flag do not) */
const COUNTING_KINDS: ReadonlySet<string> = new Set(['hostnames', 'blocked_ips', 'countries']);

/**
 * Tracking key → {@link TrackedSite}, for a hot path that sees every event.
 *
 * - A miss asks sites, settings and identity (one load per key at a time, however
 *   many events wait for it); unknown or deleted keys are remembered as null for
 *   `negativeTtlMs`, so a flood of a bad key costs one lookup per period.
 * - Entries live `ttlMs`, the bound on staleness when news is missed (a dropped
 *   connection) and the only refresh for plan changes (identity announces none).
 * - News: `settings.changed` (a counting filter of the site), `site.updated` (name,
 *   timezone, week start) and `site.deleted` drop the site's entry at once (a
 *   deletion stores null); the next event reloads it. A load that was running when
 *   news about its site arrived is not kept.
 *
 * Why not a durable consumer per service: replicas sharing one durable split the
 * messages, so every replica but one would miss each change. Every replica must
 * see every message, so the cache subscribes to the subjects: a JetStream publish is
 * a core NATS message too, and the in-process bus hands every stream publish to its
 * live subscribers as well. Nothing is stored per replica and a crashed replica
 * leaves nothing behind.
 */
export class SiteContextCache {
  private readonly entries: LRUCache<string, Entry>;
  /** site id → tracking key of the entry, so news naming a site finds its entry */
  private readonly keyOfSite = new Map<number, string>();
  private readonly loads = new Map<string, Load>();
  private readonly ttlMs: number;
  private readonly negativeTtlMs: number;
  private readonly deadlineMs: number;
  private readonly now: () => number;
  private subscriptions: Subscription[] = [];

  private constructor(private readonly options: SiteContextCacheOptions) {
    this.ttlMs = options.ttlMs ?? 60_000;
    this.negativeTtlMs = options.negativeTtlMs ?? 10_000;
    this.deadlineMs = options.deadlineMs ?? 5_000;
    this.now = options.now ?? (() => performance.now());
    this.entries = new LRUCache<string, Entry>({
      max: options.maxEntries ?? 100_000,
      dispose: (entry, key) => {
        if (entry.value && this.keyOfSite.get(entry.value.site_id) === key) this.keyOfSite.delete(entry.value.site_id);
      },
    });
  }

  /** A cache listening for news on `bus` until {@link stop}. */
  static async start(options: SiteContextCacheOptions): Promise<SiteContextCache> {
    const cache = new SiteContextCache(options);
    try {
      await cache.listen();
    } catch (error) {
      await cache.stop();
      throw error;
    }
    return cache;
  }

  /** The site behind a tracking key, or null when there is none (never was, or deleted). */
  async resolve(trackingKey: string): Promise<TrackedSite | null> {
    const entry = this.entries.get(trackingKey);
    if (entry && entry.expiresAt > this.now()) return entry.value;
    return (this.loads.get(trackingKey) ?? this.startLoad(trackingKey)).promise;
  }

  /** Forgets what is known about a site (news about it arrived). */
  invalidateSite(siteId: number, trackingKey?: string): void {
    const key = trackingKey ?? this.keyOfSite.get(siteId);
    if (key !== undefined) this.entries.delete(key);
    this.keyOfSite.delete(siteId);
    for (const load of this.loads.values()) {
      if (load.siteId === undefined || load.siteId === siteId) load.stale = true;
    }
  }

  /** Remembers that a key names no site any more. */
  forgetDeleted(siteId: number, trackingKey: string): void {
    this.invalidateSite(siteId, trackingKey);
    this.entries.set(trackingKey, { value: null, expiresAt: this.now() + this.negativeTtlMs });
  }

  /** Entries currently held (diagnostics, tests). */
  get size(): number {
    return this.entries.size;
  }

  async stop(): Promise<void> {
    const subscriptions = this.subscriptions;
    this.subscriptions = [];
    await Promise.allSettled(subscriptions.map((s) => s.stop()));
  }

  private startLoad(trackingKey: string): Load {
    const load: Load = { stale: false, promise: undefined as never };
    load.promise = loadSiteContext(this.options.clients, trackingKey, this.deadlineMs, (siteId) => (load.siteId = siteId))
      .then((value) => {
        if (!load.stale) this.store(trackingKey, value);
        return value;
      })
      .finally(() => {
        if (this.loads.get(trackingKey) === load) this.loads.delete(trackingKey);
      });
    this.loads.set(trackingKey, load);
    return load;
  }

  private store(trackingKey: string, value: TrackedSite | null): void {
    this.entries.set(trackingKey, { value, expiresAt: this.now() + (value ? this.ttlMs : this.negativeTtlMs) });
    if (value) this.keyOfSite.set(value.site_id, trackingKey);
  }

  private onSettingsChanged(message: SettingsChanged): void {
    if (COUNTING_KINDS.has(message.kind) || !isKnownKind(message.kind)) this.invalidateSite(Number(message.site_id));
  }

  private onSiteUpdated(message: SiteUpdated): void {
    this.invalidateSite(Number(message.site_id), message.tracking_key);
  }

  private onSiteDeleted(message: SiteDeleted): void {
    this.forgetDeleted(Number(message.site_id), message.tracking_key);
  }

  private async listen(): Promise<void> {
    const { bus, owner, log } = this.options;
    const guard =
      <T>(handle: (message: T) => void) =>
      (message: T): void => {
        try {
          handle(message);
        } catch (error) {
          log.warn({ err: error, owner }, 'site context: unusable message ignored');
        }
      };
    const settingsChanged = guard<SettingsChanged>((m) => this.onSettingsChanged(m));
    const siteUpdated = guard<SiteUpdated>((m) => this.onSiteUpdated(m));
    const siteDeleted = guard<SiteDeleted>((m) => this.onSiteDeleted(m));

    // A stream publish is also a plain message on its subject (on NATS, and on the
    // local bus likewise), so every replica's cache hears the news without a durable
    // consumer of its own: nothing is stored for it and nothing left behind.
    this.subscriptions.push(
      await bus.subscribe(SUBJECTS.settingsChanged, settingsChanged),
      await bus.subscribe(SUBJECTS.siteUpdated, siteUpdated),
      await bus.subscribe(SUBJECTS.siteDeleted, siteDeleted),
    );
  }
}

function isKnownKind(kind: string): boolean {
  return COUNTING_KINDS.has(kind) || kind === 'tracking' || kind === 'public_dashboard';
}
