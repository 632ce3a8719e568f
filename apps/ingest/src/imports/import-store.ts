/**
 * Every ClickHouse statement of imports, parameterized ({name:Type}); table names are
 * constants. Staging is keyed by import_id; events/sessions rows carry import_id.
 */
import {
  EVENTS_TABLE,
  ROLLUP_TABLES,
  SESSION_ATTRIBUTE_COLUMNS,
  SESSIONS_TABLE,
  type EventRow,
  type ImportLineError,
  type SessionRow,
} from '@sightline/events-schema';
import { deleteRows, type EventStore } from '@sightline/event-store';
import { clickhouseTime, type StagedRow } from './staged-row.js';

export const STAGING_TABLE = 'import_staging';
export const RUNS_TABLE = 'import_runs';

export type RunState = 'staged' | 'completed' | 'failed' | 'deleted';

export interface ImportRun {
  import_id: number;
  site_id: number;
  /** the ingest replica that staged it */
  replica: number;
  format: string;
  state: RunState;
  accepted: number;
  rejected: number;
  errors: ImportLineError[];
  /** ms since the epoch; 0 when no row was accepted */
  range_start: number;
  range_end: number;
}

export interface StagingCursor {
  visitor_key: string;
  timestamp: string;
  line: number;
}

const STAGED_COLUMNS = [
  'import_id',
  'site_id',
  'replica',
  'line',
  'visitor_key',
  'timestamp',
  'name',
  'hostname',
  'pathname',
  ...SESSION_ATTRIBUTE_COLUMNS,
  'prop_keys',
  'prop_values',
  'engagement_ms',
  'scroll_depth',
  'status_code',
].join(', ');

export class ImportStore {
  constructor(private readonly events: EventStore) {}

  stage(rows: readonly StagedRow[]): Promise<void> {
    return this.events.insert(STAGING_TABLE, rows as unknown as Record<string, unknown>[]);
  }

  /** The next page of an import's staged rows in (visitor, time, line) order: ClickHouse sorts, Node holds one page. */
  readStaged(importId: number, after: StagingCursor | undefined, limit: number): Promise<StagedRow[]> {
    const params: Record<string, unknown> = { id: importId, limit };
    let where = 'import_id = {id:UInt64}';
    if (after) {
      where += ' AND (visitor_key, timestamp, line) > ({vk:String}, {ts:DateTime64(3)}, {line:UInt32})';
      Object.assign(params, { vk: after.visitor_key, ts: after.timestamp, line: after.line });
    }
    return this.events.query<StagedRow>(
      `SELECT ${STAGED_COLUMNS} FROM ${STAGING_TABLE} WHERE ${where} ORDER BY visitor_key, timestamp, line LIMIT {limit:UInt32}`,
      params,
    );
  }

  async writeRows(events: readonly EventRow[], sessions: readonly SessionRow[]): Promise<void> {
    if (events.length > 0) await this.events.insert(EVENTS_TABLE, events as unknown as Record<string, unknown>[]);
    if (sessions.length > 0) await this.events.insert(SESSIONS_TABLE, sessions as unknown as Record<string, unknown>[]);
  }

  /** Exactly this import's written rows; the staged ones too unless `keepStaging` (only those with `onlyStaging`). Idempotent. */
  async deleteImportRows(siteId: number, importId: number, options: { keepStaging?: boolean; onlyStaging?: boolean } = {}): Promise<void> {
    const params = { site: siteId, id: importId };
    if (options.onlyStaging) {
      await deleteRows(this.events, STAGING_TABLE, 'import_id = {id:UInt64} AND site_id = {site:UInt64}', params);
      return;
    }
    await deleteRows(this.events, EVENTS_TABLE, 'site_id = {site:UInt64} AND import_id = {id:UInt64}', params);
    await deleteRows(this.events, SESSIONS_TABLE, 'site_id = {site:UInt64} AND import_id = {id:UInt64}', params);
    // the roll-ups hold each import's rows apart (import_id in their key): exactly its share goes
    for (const table of ROLLUP_TABLES) await deleteRows(this.events, table, 'site_id = {site:UInt64} AND import_id = {id:UInt64}', params);
    if (!options.keepStaging) await deleteRows(this.events, STAGING_TABLE, 'import_id = {id:UInt64} AND site_id = {site:UInt64}', params);
  }

  /** Every imported row of a site (site.deleted); live rows are the live pipeline's to remove. */
  async deleteSiteImports(siteId: number): Promise<number[]> {
    const runs = await this.events.query<{ import_id: number }>(`SELECT DISTINCT import_id FROM ${RUNS_TABLE} WHERE site_id = {site:UInt64}`, { site: siteId });
    const params = { site: siteId };
    await deleteRows(this.events, EVENTS_TABLE, 'site_id = {site:UInt64} AND import_id > 0', params);
    await deleteRows(this.events, SESSIONS_TABLE, 'site_id = {site:UInt64} AND import_id > 0', params);
    for (const table of ROLLUP_TABLES) await deleteRows(this.events, table, 'site_id = {site:UInt64} AND import_id > 0', params);
    await deleteRows(this.events, STAGING_TABLE, 'site_id = {site:UInt64}', params);
    return runs.map((r) => Number(r.import_id));
  }

  async recordRun(run: ImportRun, at: number): Promise<void> {
    await this.events.insert(RUNS_TABLE, [
      {
        import_id: run.import_id,
        site_id: run.site_id,
        replica: run.replica,
        format: run.format,
        state: run.state,
        accepted: run.accepted,
        rejected: run.rejected,
        errors: JSON.stringify(run.errors),
        range_start: clickhouseTime(run.range_start),
        range_end: clickhouseTime(run.range_end),
        updated_at: clickhouseTime(at),
      },
    ]);
  }

  async run(importId: number): Promise<ImportRun | undefined> {
    const rows = await this.events.query<RawRun>(`${RUN_SELECT} WHERE import_id = {id:UInt64}`, { id: importId });
    return rows[0] ? toRun(rows[0]) : undefined;
  }

  /** This replica's imports staged completely but not written: a crash interrupted them. */
  async stagedRuns(replica: number): Promise<ImportRun[]> {
    const rows = await this.events.query<RawRun>(`${RUN_SELECT} WHERE state = 'staged' AND replica = {replica:UInt16} ORDER BY import_id`, { replica });
    return rows.map(toRun);
  }

  /** Staged rows of this replica's uploads that never finished (no run recorded): a crash during the upload. */
  orphanStaging(replica: number): Promise<Array<{ import_id: number; site_id: number }>> {
    return this.events.query(
      `SELECT DISTINCT import_id, site_id FROM ${STAGING_TABLE} WHERE replica = {replica:UInt16} AND import_id NOT IN (SELECT import_id FROM ${RUNS_TABLE}) ORDER BY import_id`,
      { replica },
    );
  }
}

interface RawRun {
  import_id: number;
  site_id: number;
  replica: number;
  format: string;
  state: RunState;
  accepted: number;
  rejected: number;
  errors: string;
  range_start: number;
  range_end: number;
}

const RUN_SELECT = `SELECT import_id, site_id, replica, format, state, accepted, rejected, errors,
  toUnixTimestamp64Milli(range_start) AS range_start, toUnixTimestamp64Milli(range_end) AS range_end
  FROM ${RUNS_TABLE} FINAL`;

const toRun = (r: RawRun): ImportRun => ({
  import_id: Number(r.import_id),
  site_id: Number(r.site_id),
  replica: Number(r.replica),
  format: r.format,
  state: r.state,
  accepted: Number(r.accepted),
  rejected: Number(r.rejected),
  errors: JSON.parse(r.errors) as ImportLineError[],
  range_start: Number(r.range_start),
  range_end: Number(r.range_end),
});
