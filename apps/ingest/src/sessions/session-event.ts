import type { SessionAttributes } from '@sightline/events-schema';

export type { SessionAttributes };

/**
 * One event as the sessionizer consumes it: enriched, identified, with no IP or
 * User-Agent left. Live ingest and imports both produce these.
 */
export interface SessionEvent {
  site_id: number;
  /** event time, ms since epoch (UTC) */
  at: number;
  name: string;
  /** UInt64 as decimal text */
  visitor_id: string;
  /** the tracker's per-tab marker `s`, '' when absent */
  marker: string;
  hostname: string;
  pathname: string;
  prop_keys: string[];
  prop_values: string[];
  engagement_ms: number;
  scroll_depth: number;
  status_code: number;
  import_id: number;
  attributes: SessionAttributes;
}
