import type { SessionRow } from '@sightline/events-schema';

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
  /** per visit, the rows still to write, in arrival order */
  private readonly visits = new Map<string, SessionRow[]>();
  private rowCount = 0;

  /** Rows to insert. */
  get size(): number {
    return this.rowCount;
  }

  add(row: SessionRow): void {
    const key = `${row.site_id}:${row.session_id}`;
    let rows = this.visits.get(key);
    if (!rows) this.visits.set(key, (rows = []));
    if (row.sign === -1) {
      // only an exact pair cancels: the +1 of this very version, written in this batch
      const pair = rows.findLastIndex((r) => r.sign === 1 && r.version === row.version);
      if (pair >= 0) {
        rows.splice(pair, 1);
        this.rowCount -= 1;
        return;
      }
    }
    rows.push(row);
    this.rowCount += 1;
  }

  rows(): SessionRow[] {
    const out: SessionRow[] = [];
    for (const rows of this.visits.values()) out.push(...rows);
    return out;
  }
}
