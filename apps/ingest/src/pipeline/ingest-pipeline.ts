import { ENGAGEMENT } from '@sightline/events-schema';
import type { EventStore } from '@sightline/event-store';
import type { SaltSource } from '../identity/daily-salts.js';
import { VisitorIds } from '../identity/visitor-ids.js';
import type { SessionCache } from '../sessions/session-cache.js';
import { applyEvent, continuesSession } from '../sessions/sessionizer.js';
import { takeCorrection } from '../sessions/visit-repair.js';
import type { BatchWriter } from '../writer/batch-writer.js';
import { storedEventSession } from '../writer/stored-event-session.js';
import type { Drop } from './drop-reasons.js';
import type { IngestPorts } from './ports.js';
import { prepareEvent, type PreparedEvent } from './prepare-event.js';

export interface IngestPipelineDeps {
  ports: IngestPorts;
  salts: SaltSource;
  sessions: SessionCache;
  writer: BatchWriter;
  store: EventStore;
}

/**
 * One collected event from the bus to a batch: prepare (parse, drops, site, filters,
 * enrich) → identify (visitor ids under the event day's salt and the day before) →
 * sessionize → buffer. `handle` resolves once the rows are stored, so the caller acks
 * after the insert.
 *
 * Exactly once: a redelivery of a message still waiting in a batch joins that wait
 * (same payload bytes); a redelivery of a stored one is found in the events table and
 * writes no second row. Its visit already counts it: the rebuild after a restart
 * repaired every live visit whose session rows lagged its events (a kill between the
 * two inserts; rebuild-sessions.ts), and the first message of a repaired visit writes
 * the repair. Only a visit that is not live (outside the rebuild's window) can still
 * lack it; its update is replayed when the event is newer than the visit's last one.
 */
export class IngestPipeline {
  private readonly waiting = new Map<string | number, Promise<void>>();
  private readonly visitorIds: VisitorIds;
  /**
   * Resolves once every earlier message has been applied to its visit. Preparation
   * (site, salts, stored check) runs concurrently and may finish out of order — a
   * cache miss awaits a lookup while later events hit the cache — so the visit
   * updates are applied strictly in delivery order, or a visitor's later event could
   * open a visit before the earlier one was counted (two visits merged into one).
   */
  private applied: Promise<void> = Promise.resolve();

  constructor(private readonly deps: IngestPipelineDeps) {
    this.visitorIds = new VisitorIds(deps.salts, deps.ports.clock);
  }

  /**
   * `streamSeq`: the message's sequence in the events stream, the same on every
   * redelivery, so it names the message; without it the payload's JSON does (a
   * few hundred bytes, held only while the batch waits). `storedAt`: when the bus
   * stored it, for the writer (BatchPart.storedAt).
   */
  handle(raw: unknown, redelivered: boolean, streamSeq?: number, storedAt?: number): Promise<void> {
    const key = streamSeq ?? JSON.stringify(raw);
    const pending = this.waiting.get(key);
    if (pending) return pending;
    const staged = this.stage(raw, redelivered, storedAt);
    // wrapped in an object: awaiting the turn must not wait for the batch insert
    const turn = this.applied.then(() => staged).then((apply) => ({ stored: apply() }));
    this.applied = turn.then(
      () => undefined,
      () => undefined,
    );
    const run = turn.then((t) => t.stored).finally(() => this.waiting.delete(key));
    this.waiting.set(key, run);
    return run;
  }

  private drop(drop: Drop): Promise<void> {
    return this.deps.writer.add({ events: [], sessions: [], drops: [drop] });
  }

  /** Everything that awaits; resolves with the synchronous visit update to apply in order. */
  private async stage(raw: unknown, redelivered: boolean, storedAt: number | undefined): Promise<() => Promise<void>> {
    const { ports, sessions, store } = this.deps;
    const prepared = await prepareEvent(raw, ports);
    if (!prepared.ok) return () => this.drop(prepared.drop);
    const { site, event, ip, ua } = prepared.value;

    // most events are a known visitor's: their ids are memoised, no await
    const visitorIds = this.visitorIds.peek(event.at, site.site_id, ip, ua) ?? (await this.visitorIds.of(event.at, site.site_id, ip, ua));
    if (!visitorIds) return () => this.drop({ reason: 'stale', site_id: site.site_id, crawler_category: '', at: new Date(event.at) });

    let stored = false;
    if (redelivered) {
      const candidate = sessions.find(site.site_id, visitorIds, event.marker, event.at);
      stored = (await storedEventSession(store, event, candidate ? [...visitorIds, candidate.visitor_id] : visitorIds)) !== undefined;
    }
    return () => this.apply(site.site_id, event, visitorIds, stored, storedAt);
  }

  /** Finds and updates the visit: synchronous up to writer.add, so it is atomic. */
  private apply(siteId: number, event: PreparedEvent['event'], visitorIds: readonly string[], stored: boolean, storedAt: number | undefined): Promise<void> {
    const { sessions, writer } = this.deps;
    const visitorId = visitorIds[0]!;
    const live = sessions.find(siteId, visitorIds, event.marker, event.at);
    // a visit repaired at the rebuild is written with the first message of it that comes
    const repair = live ? takeCorrection(live) : [];
    if (stored) {
      // Replay only what the (rebuilt) visit provably lacks: a non-engagement event
      // newer than its last one. Anything else is already counted, or unknowable.
      const visitLacksIt = event.name !== ENGAGEMENT && live !== undefined && continuesSession(live, event.at) && event.at > live.last;
      if (!visitLacksIt) return repair.length > 0 ? writer.add({ events: [], sessions: repair, drops: [] }) : Promise.resolve();
    }
    // set in place: a copy with one more field ({ ...event, visitor_id }) cost ~2 µs per event
    event.visitor_id = visitorId;
    const step = applyEvent(live, event);
    if (step.dropped) {
      const dropped = this.drop({ reason: step.dropped, site_id: siteId, crawler_category: '', at: new Date(event.at) });
      return repair.length > 0 ? Promise.all([writer.add({ events: [], sessions: repair, drops: [] }), dropped]).then(() => undefined) : dropped;
    }
    if (step.session) sessions.put(step.session, visitorId);
    const sessionVersions = repair.length > 0 ? [...repair, ...step.sessionVersions] : step.sessionVersions;
    const eventRow = step.eventRow && !stored ? step.eventRow : undefined;
    // joined a visit that started after it: the visit's start stays, the day is recorded
    const late = eventRow !== undefined && live !== undefined && event.at < live.start;
    return writer.add({
      events: eventRow ? [eventRow] : [],
      sessions: sessionVersions,
      drops: [],
      lateDays: late ? [{ site_id: siteId, day: new Date(event.at).toISOString().slice(0, 10) }] : undefined,
      storedAt,
      // the event row carries the visit's attributes: encoded once per visit
      visitAttributes: step.session?.attributes,
    });
  }
}
