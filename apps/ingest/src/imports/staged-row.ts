import type { SessionAttributes } from '@sightline/events-schema';

/** One valid import line after normalisation: a row of `import_staging` (apps/ingest/clickhouse/0003_imports.sql), the session attributes included. */
export interface StagedRow extends SessionAttributes {
  import_id: number;
  site_id: number;
  /** the ingest replica that received the upload */
  replica: number;
  /** 1-based line of the upload */
  line: number;
  /** the import's own visitor id, as given (hashed with the site into a visitor_id when written) */
  visitor_key: string;
  /** 'YYYY-MM-DD HH:MM:SS.mmm' UTC */
  timestamp: string;
  name: string;
  hostname: string;
  pathname: string;
  prop_keys: string[];
  prop_values: string[];
  engagement_ms: number;
  scroll_depth: number;
  status_code: number;
}

/** ClickHouse's DateTime64(3) text form of an instant (UTC). */
export const clickhouseTime = (ms: number): string => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
