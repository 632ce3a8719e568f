import { STREAM_NAMES, SUBJECTS, type Bus, type Subscription } from '@sightline/bus';
import type { Logger } from '@sightline/telemetry';
import type { ImportRunner } from './import-runner.js';

export const SITE_DELETED_IMPORTS_DURABLE = 'ingest-imports-site-deleted';

/**
 * site.deleted → every imported row of the site (events, sessions, staging) goes.
 * Acked only after the deletes, so a crash redelivers it; the deletes are idempotent.
 */
export async function startSiteDeletedImports(bus: Bus, runner: ImportRunner, log: Logger, durable = SITE_DELETED_IMPORTS_DURABLE): Promise<Subscription> {
  return bus.consume<typeof SUBJECTS.siteDeleted>({
    stream: STREAM_NAMES.sites,
    durable,
    filterSubject: SUBJECTS.siteDeleted,
    handler: async (msg) => {
      const siteId = msg.data?.site_id;
      if (!Number.isSafeInteger(siteId) || siteId <= 0) {
        log.warn({ msg_id: msg.msgId }, 'site.deleted without a usable site_id; dropped');
        return;
      }
      await runner.deleteSite(siteId);
    },
  });
}
