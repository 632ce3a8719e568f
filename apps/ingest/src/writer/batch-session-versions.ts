import type { SessionRow } from '@sightline/events-schema';
import { sessionRow, type SessionVersion } from '../sessions/sessionizer.js';

/**
 * The session row versions of one batch, coalesced per visit. Every event of a visit
 * writes [old version −1, new version +1]; in VersionedCollapsingMergeTree a +1 row
 * and the −1 row of the same version cancel out, so when both are in one batch
 * neither needs to be written: a visit with five events in a batch inserts at most
 * two rows (the cancel of the version an earlier batch stored, and the final
 * version) instead of nine. The table reads the same once collapsed (FINAL or
 * sum(sign)), and inserts, parts and merges shrink with it.
 */
export class BatchSessionVersions {
  /** per visit, the versions still to write, in arrival order; built into rows only by rows() */
  private readonly visits = new Map<string, SessionVersion[]>();
  private rowCount = 0;

  /** Rows to insert. */
  get size(): number {
    return this.rowCount;
  }

  add(version: SessionVersion): void {
    const key = `${version.session.site_id}:${version.session.session_id}`;
    let versions = this.visits.get(key);
    if (!versions) this.visits.set(key, (versions = []));
    if (version.sign === -1) {
      // only an exact pair cancels: the +1 of this very version, written in this batch
      const number = version.session.version;
      const pair = versions.findLastIndex((v) => v.sign === 1 && v.session.version === number);
      if (pair >= 0) {
        versions.splice(pair, 1);
        this.rowCount -= 1;
        return;
      }
    }
    versions.push(version);
    this.rowCount += 1;
  }

  /** The versions to write, in arrival order per visit. */
  *versions(): IterableIterator<SessionVersion> {
    for (const versions of this.visits.values()) yield* versions;
  }

  /** The rows to insert, built now. */
  rows(): SessionRow[] {
    const out: SessionRow[] = [];
    for (const versions of this.visits.values()) for (const v of versions) out.push(sessionRow(v.session, v.sign));
    return out;
  }
}
