import { SESSION_GAP_MINUTES, continuesSession, type LiveSession } from './sessionizer.js';

/** Kept a little past the 30-minute rule, for events that arrive late. */
const IDLE_MS = (SESSION_GAP_MINUTES + 1) * 60_000 + 5 * 60_000;

interface Entry {
  session: LiveSession;
  /** the keys leading here (two or three): an array, as a Set per visit cost several times its bytes */
  keys: string[];
}

/**
 * The live visits of this process, reachable by visitor id (today's and
 * yesterday's ids of the same person, once both have been seen) and by the tab
 * marker `s`, so a visit survives midnight and an IP change mid-visit.
 * Expiry follows event time (the newest event seen), so a backlog replayed after
 * an outage sessionizes as it would have live.
 */
export class SessionCache {
  private readonly entries = new Map<string, Entry>();
  private sessionsCount = 0;
  private watermark = 0;

  get size(): number {
    return this.sessionsCount;
  }

  /** The visit an event continues, else any candidate found (the sessionizer decides). */
  find(siteId: number, visitorIds: readonly string[], marker: string, at: number): LiveSession | undefined {
    const candidates: LiveSession[] = [];
    for (const id of visitorIds) {
      const s = this.entries.get(visitorKey(siteId, id))?.session;
      if (s) candidates.push(s);
    }
    if (marker !== '') {
      const s = this.entries.get(markerKey(siteId, marker))?.session;
      if (s) candidates.push(s);
    }
    return candidates.find((s) => continuesSession(s, at)) ?? candidates[0];
  }

  /** Stores the visit's new state, reachable also under `aliasVisitorId` (the id the event computed). */
  put(session: LiveSession, aliasVisitorId: string): void {
    const wanted = [visitorKey(session.site_id, session.visitor_id), visitorKey(session.site_id, aliasVisitorId)];
    if (session.marker !== '') wanted.push(markerKey(session.site_id, session.marker));
    let entry = this.entries.get(wanted[0]!);
    if (!entry || entry.session.session_id !== session.session_id) {
      if (entry) this.remove(entry);
      entry = { session, keys: [] };
      this.sessionsCount += 1;
    }
    entry.session = session;
    for (const key of wanted) {
      const other = this.entries.get(key);
      if (other && other !== entry) {
        // The key now leads to the newer visit; the old one loses it.
        other.keys.splice(other.keys.indexOf(key), 1);
        if (other.keys.length === 0) this.sessionsCount -= 1;
      }
      if (!entry.keys.includes(key)) entry.keys.push(flat(key));
      this.entries.set(key, entry);
    }
    if (session.last > this.watermark) this.watermark = session.last;
  }

  /** Drops visits idle for longer than any event could still continue them. */
  expire(): number {
    let removed = 0;
    const seen = new Set<Entry>();
    for (const entry of this.entries.values()) {
      if (seen.has(entry)) continue;
      seen.add(entry);
      if (this.watermark - entry.session.last > IDLE_MS) {
        this.remove(entry);
        removed += 1;
      }
    }
    return removed;
  }

  /** Forgets every visit of a site (site deleted). */
  dropSite(siteId: number): void {
    for (const entry of new Set(this.entries.values())) if (entry.session.site_id === siteId) this.remove(entry);
  }

  private remove(entry: Entry): void {
    for (const key of entry.keys) if (this.entries.get(key) === entry) this.entries.delete(key);
    entry.keys.length = 0;
    this.sessionsCount -= 1;
  }
}

function visitorKey(siteId: number, visitorId: string): string {
  return `v${siteId}:${visitorId}`;
}

function markerKey(siteId: number, marker: string): string {
  return `s${siteId}:${marker}`;
}

/**
 * A key as the Map keeps it: a template literal's result is a tree of pieces (V8 cons
 * strings), several times the bytes of the text, held for every live visit. Reading a
 * character flattens it in place. Lookups need no flat key.
 */
function flat(key: string): string {
  key.charCodeAt(0);
  return key;
}
