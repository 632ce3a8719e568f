/** One valid import line after normalisation: a row of `import_staging` (apps/ingest/clickhouse/0002_imports.sql). */
export interface StagedRow {
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
  referrer: string;
  source: string;
  channel: string;
  utm_source: string;
  utm_medium: string;
  utm_campaign: string;
  utm_content: string;
  utm_term: string;
  click_id: string;
  country: string;
  region: string;
  city: number;
  browser: string;
  browser_version: string;
  os: string;
  os_version: string;
  device: string;
  prop_keys: string[];
  prop_values: string[];
  engagement_ms: number;
  scroll_depth: number;
  status_code: number;
}

/** ClickHouse's DateTime64(3) text form of an instant (UTC). */
export const clickhouseTime = (ms: number): string => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
