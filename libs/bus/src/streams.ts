import type { CollectedEvent, ImportProgress } from '@sightline/events-schema';
import type { StreamConfig } from './bus.js';

/**
 * The product's stream and subject catalogue. Every service calls
 * `bus.ensureStreams(SIGHTLINE_STREAMS)` at start-up, so the set is declared once.
 */
export const STREAM_NAMES = {
  events: 'EVENTS',
  sites: 'SITES',
  settings: 'SETTINGS',
  imports: 'IMPORTS',
} as const;

export const SUBJECTS = {
  /** Tracker events accepted by the gateway; ingest consumes them durably. (stream EVENTS) */
  eventsCollected: 'events.collected',
  /** A site was deleted; owners of per-site data clean up. (stream SITES) */
  siteDeleted: 'site.deleted',
  /** A site's name (origin), timezone or week start changed; caches of site context reload. (stream SITES) */
  siteUpdated: 'site.updated',
  /** Site/account settings changed; caches reload. (stream SETTINGS) */
  settingsChanged: 'settings.changed',
  /** Progress and outcome of an import job: ingest reports, sites records it on the job. (stream IMPORTS) */
  importProgress: 'import.progress',
  /** Broadcast, not stored: an API key was revoked; every gateway replica drops it now. */
  keysRevoked: 'keys.revoked',
} as const;

export type SubjectName = (typeof SUBJECTS)[keyof typeof SUBJECTS];

const HOUR_MS = 3_600_000;

/**
 * Retention is by age, not by consumer interest, so nothing published is lost while
 * a consumer is down or not yet created. The ages bound disk use: tracker events
 * wait up to 3 days for ingest (an outage longer than that needs an operator
 * anyway); lifecycle and settings messages are small and rare.
 */
export const SIGHTLINE_STREAMS: StreamConfig[] = [
  { name: STREAM_NAMES.events, subjects: ['events.>'], maxAgeMs: 72 * HOUR_MS },
  { name: STREAM_NAMES.sites, subjects: ['site.>'], maxAgeMs: 14 * 24 * HOUR_MS },
  { name: STREAM_NAMES.settings, subjects: ['settings.>'], maxAgeMs: 14 * 24 * HOUR_MS },
  { name: STREAM_NAMES.imports, subjects: ['import.>'], maxAgeMs: 7 * 24 * HOUR_MS },
];

/**
 * Payload type per subject. Left `unknown` on purpose: the schemas belong to the
 * features that publish them and are filled in there (replace `unknown` with the
 * payload type, e.g. one inferred from a zod schema).
 */
export interface SubjectPayloads {
  /**
   * published by the gateway for each accepted tracker event: the tracker's fields
   * (k, n, u, d, r?, p?, e?, sd?, sc?, s?) plus server time, client IP and User-Agent.
   * IP and User-Agent only feed the visitor hash and enrichment; they are never stored.
   */
  [SUBJECTS.eventsCollected]: CollectedEvent;
  /** published by sites (through its outbox) when a site is deleted; per-site data owners drop theirs */
  [SUBJECTS.siteDeleted]: { site_id: number; account_id: number; tracking_key: string; deleted_at: string };
  /** published by sites (through its outbox) when UpdateSite changed the name, timezone or week start; the site as it now is */
  [SUBJECTS.siteUpdated]: { site_id: number; account_id: number; tracking_key: string; name: string; timezone: string; week_start: number; updated_at: string };
  /** published by settings (through its outbox) on every settings write; sites records `audit` in its audit trail */
  [SUBJECTS.settingsChanged]: {
    site_id: number;
    kind: 'tracking' | 'hostnames' | 'blocked_ips' | 'countries' | 'public_dashboard';
    /** the tracking version after the write; 0 for the other kinds */
    version: number;
    changed_at: string;
    audit: {
      action: string;
      account_id: number;
      key_id: string;
      ip: string;
      user_agent: string;
      request_id: string;
      details: Record<string, unknown>;
    };
  };
  /**
   * published by ingest as an import moves on: `seq` grows with every report of one
   * import, so sites applies a report only when it is newer than the one it holds
   * (redeliveries and reordering never move a job backwards).
   */
  [SUBJECTS.importProgress]: ImportProgress;
  /** published by identity on revoke and rotate; gateways drop the key from their cache */
  [SUBJECTS.keysRevoked]: { key_id: string; account_id: number };
}
