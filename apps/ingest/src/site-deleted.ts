import { STREAM_NAMES, SUBJECTS, type Bus, type SubjectPayloads, type Subscription } from '@sightline/bus';
import { DROPPED_EVENTS_TABLE, EVENTS_TABLE, LATE_EVENT_DAYS_TABLE, ROLLUP_TABLES, SESSIONS_TABLE } from '@sightline/events-schema';
import { deleteRows, type EventStore } from '@sightline/event-store';
import type { Logger } from '@sightline/telemetry';
import type { IngestCore } from './ingest-core.js';

type SiteDeletedPayload = SubjectPayloads[typeof SUBJECTS.siteDeleted];

export const INGEST_DURABLE = 'ingest';

/** Deletes a site's events, sessions, roll-ups, drop counts and late-event days (idempotent: a redelivery deletes nothing more). */
export async function deleteSiteData(store: EventStore, siteId: number): Promise<void> {
  for (const table of [EVENTS_TABLE, SESSIONS_TABLE, ...ROLLUP_TABLES, DROPPED_EVENTS_TABLE, LATE_EVENT_DAYS_TABLE]) {
    await deleteRows(store, table, 'site_id = {site:UInt64}', { site: siteId });
  }
}

/**
 * Consumes `site.deleted` (stream SITES, durable `ingest`). The pipeline first
 * forgets the site's visits, stops writing its rows and finishes the batches that
 * may hold some (an event prepared before the deletion can reach a batch after it;
 * with pipeline workers, every worker does), then the rows are deleted.
 */
export function consumeSiteDeleted(store: EventStore, bus: Bus, core: Pick<IngestCore, 'forgetSite'>, log: Logger): Promise<Subscription> {
  return bus.consume({
    stream: STREAM_NAMES.sites,
    durable: INGEST_DURABLE,
    filterSubject: SUBJECTS.siteDeleted,
    handler: async (msg) => {
      const siteId = msg.data?.site_id;
      if (!Number.isSafeInteger(siteId) || siteId <= 0) {
        log.warn({ msg_id: msg.msgId }, 'site.deleted without a valid site_id; dropped');
        return;
      }
      await core.forgetSite(siteId);
      await deleteSiteData(store, siteId);
      log.info({ site_id: siteId }, 'events, sessions and drop counts of a deleted site deleted');
    },
  });
}
