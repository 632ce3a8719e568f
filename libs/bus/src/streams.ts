import type { CollectedEvent, ImportProgress } from '@sightline/events-schema';
import type { StreamConfig } from './stream-config.js';
import { COLLECTED_FILTER, type CollectedSubject } from './collected-shard.js';

/**
 * The product's stream and subject catalogue. Every service calls
 * `bus.ensureStreams(SIGHTLINE_STREAMS)` at start-up, so the set is declared once.
 */
export const STREAM_NAMES = {
  /** Collected tracker events, a work queue (see SIGHTLINE_STREAMS). Replaces the limits-retention `EVENTS`. */
  events: 'EVENTS_WQ',
  sites: 'SITES',
  settings: 'SETTINGS',
  imports: 'IMPORTS',
} as const;

/** The stream `EVENTS_WQ` replaced (limits retention, `events.>`); drained and deleted by ensureStreams. */
export const LEGACY_EVENTS_STREAM = 'EVENTS';

export const SUBJECTS = {
  /** Filter of every `events.collected.<shard>` subject; publish with `collectedSubject(shard)`. (stream EVENTS_WQ) */
  eventsCollected: COLLECTED_FILTER,
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
  /** Broadcast, not stored: a member lost access to a site, or an account's plan changed; gateways drop cached report access. */
  reportAccessChanged: 'report-access.changed',
  /** Broadcast, not stored: a site's stored events changed outside ingest's stream (an import deleted); gateways drop cached answers. */
  reportDataChanged: 'report-data.changed',
} as const;

export type SubjectName = (typeof SUBJECTS)[keyof typeof SUBJECTS];

const HOUR_MS = 3_600_000;

/**
 * SITES and SETTINGS: limits retention (by age, not by consumer interest), so
 * nothing published is lost while a consumer is down or not yet created; the
 * messages are small and rare.
 *
 * EVENTS_WQ: a work queue. A collected event carries the visitor's raw IP and
 * User-Agent, so it is kept only until ingest has stored it (acked by the one
 * durable of its shard); 3 days of age is the backstop for an ingest outage.
 * Events published before ingest's durable exists wait for it. It supersedes the
 * limits-retention `EVENTS` stream (JetStream cannot change retention in place):
 * ensureStreams narrows EVENTS to the old unsharded subject `events.collected`
 * (what it holds stays readable) and deletes it once empty.
 */
export const SIGHTLINE_STREAMS: StreamConfig[] = [
  {
    name: STREAM_NAMES.events,
    subjects: [COLLECTED_FILTER],
    retention: 'workqueue',
    maxAgeMs: 72 * HOUR_MS,
    supersedes: { name: LEGACY_EVENTS_STREAM, narrowTo: ['events.collected'] },
  },
  { name: STREAM_NAMES.sites, subjects: ['site.>'], maxAgeMs: 14 * 24 * HOUR_MS },
  { name: STREAM_NAMES.settings, subjects: ['settings.>'], maxAgeMs: 14 * 24 * HOUR_MS },
  { name: STREAM_NAMES.imports, subjects: ['import.>'], maxAgeMs: 7 * 24 * HOUR_MS },
];

/** The settings kinds a `settings.changed` message announces. */
export type SettingsKind = 'tracking' | 'hostnames' | 'blocked_ips' | 'countries' | 'public_dashboard';

/**
 * Payload type per subject (and per wildcard filter a consumer may use): the one
 * definition publishers, the outbox and consumers share. `Bus.publish`,
 * `Bus.consume`, `broadcast`, `subscribe` and `enqueueOutboxMessage` are typed by it.
 */
export interface SubjectPayloads {
  /**
   * published by the gateway for each accepted tracker event, to the visitor's shard
   * (`collectedSubject(collectedEventShard(event, EVENT_SHARDS))`): the tracker's
   * fields (k, n, u, d, r?, p?, e?, sd?, sc?, s?) plus server time, client IP and
   * User-Agent. IP and User-Agent only feed the visitor hash and enrichment; they
   * are never stored.
   */
  [collected: CollectedSubject]: CollectedEvent;
  /** consumer filter of every shard */
  [SUBJECTS.eventsCollected]: CollectedEvent;
  /** published by sites (through its outbox) when a site is deleted; per-site data owners drop theirs */
  [SUBJECTS.siteDeleted]: { site_id: number; account_id: number; tracking_key: string; deleted_at: string };
  /** published by sites (through its outbox) when UpdateSite changed the name, timezone or week start; the site as it now is */
  [SUBJECTS.siteUpdated]: { site_id: number; account_id: number; tracking_key: string; name: string; timezone: string; week_start: number; updated_at: string };
  /** published by settings (through its outbox) on every settings write */
  [SUBJECTS.settingsChanged]: SettingsChanged;
  /**
   * published by ingest as an import moves on: `seq` grows with every report of one
   * import, so sites applies a report only when it is newer than the one it holds
   * (redeliveries and reordering never move a job backwards).
   */
  [SUBJECTS.importProgress]: ImportProgress;
  /** published by identity on revoke and rotate; gateways drop the key from their cache */
  [SUBJECTS.keysRevoked]: { key_id: string; account_id: number };
  /** published by a gateway after a member removal (site_id) or a subscription change (account_id) */
  [SUBJECTS.reportAccessChanged]: { site_id?: number; account_id?: number };
  /** published by the gateway that deleted an import's rows */
  [SUBJECTS.reportDataChanged]: { site_id: number };
}

/**
 * `settings.changed`: what consumers act on is in the payload proper — `features`
 * (the new normalized selection, kind `tracking` only: script-builder pre-builds
 * it). `audit` is the entry sites records in its audit trail (keyed by msgId);
 * its `details` are for people, not for consumers.
 */
export interface SettingsChanged {
  site_id: number;
  kind: SettingsKind;
  /** the tracking version after the write; 0 for the other kinds */
  version: number;
  changed_at: string;
  /** kind `tracking` only: the selection now in force (normalized feature ids) */
  features?: string[];
  audit: {
    action: string;
    account_id: number;
    key_id: string;
    ip: string;
    user_agent: string;
    request_id: string;
    details: Record<string, unknown>;
  };
}
