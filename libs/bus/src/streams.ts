import type { StreamConfig } from './bus.js';

/**
 * The product's stream and subject catalogue. Every service calls
 * `bus.ensureStreams(SIGHTLINE_STREAMS)` at start-up, so the set is declared once.
 */
export const STREAM_NAMES = {
  events: 'EVENTS',
  sites: 'SITES',
  settings: 'SETTINGS',
} as const;

export const SUBJECTS = {
  /** Tracker events accepted by the gateway; ingest consumes them durably. (stream EVENTS) */
  eventsCollected: 'events.collected',
  /** A site was deleted; owners of per-site data clean up. (stream SITES) */
  siteDeleted: 'site.deleted',
  /** Site/account settings changed; caches reload. (stream SETTINGS) */
  settingsChanged: 'settings.changed',
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
];

/**
 * Payload type per subject. Left `unknown` on purpose: the schemas belong to the
 * features that publish them and are filled in there (replace `unknown` with the
 * payload type, e.g. one inferred from a zod schema).
 */
export interface SubjectPayloads {
  [SUBJECTS.eventsCollected]: unknown;
  /** published by sites (through its outbox) when a site is deleted; per-site data owners drop theirs */
  [SUBJECTS.siteDeleted]: { site_id: number; account_id: number; tracking_key: string; deleted_at: string };
  [SUBJECTS.settingsChanged]: unknown;
  /** published by identity on revoke and rotate; gateways drop the key from their cache */
  [SUBJECTS.keysRevoked]: { key_id: string; account_id: number };
}
