import { STREAM_NAMES, SUBJECTS, startDurableConsumer, type Bus, type DurableConsumer } from '@sightline/bus';
import type { Db } from '@sightline/db';
import type { Logger } from '@sightline/telemetry';

export const SITE_DELETED_DURABLE = 'settings';

/** Drops every setting of a site (idempotent: a redelivery deletes nothing more). */
export async function dropSiteSettings(db: Db, siteId: number): Promise<void> {
  await db.transaction(async (tx) => {
    for (const table of ['hostname_filters', 'blocked_ips', 'country_filters', 'site_settings']) {
      await tx.query(`DELETE FROM settings.${table} WHERE site_id = $1`, [siteId]);
    }
  });
}

/**
 * Consumes `site.deleted` (stream SITES, durable `settings`): the site's settings go
 * with it. Retries in the background until the SITES stream exists.
 */
export function consumeSiteDeleted(db: Db, bus: Bus, log: Logger, durable = SITE_DELETED_DURABLE, retryStartMs?: number): DurableConsumer {
  return startDurableConsumer(
    bus,
    {
      stream: STREAM_NAMES.sites,
      durable,
      filterSubject: SUBJECTS.siteDeleted,
      handler: async (msg) => {
        const siteId = msg.data?.site_id;
        if (!Number.isSafeInteger(siteId) || siteId <= 0) {
          log.warn({ msg_id: msg.msgId }, 'site.deleted without a valid site_id; dropped');
          return;
        }
        await dropSiteSettings(db, siteId);
        log.info({ site_id: siteId }, 'settings of a deleted site dropped');
      },
    },
    {
      ...(retryStartMs !== undefined ? { firstDelayMs: retryStartMs } : {}),
      onRetry: (error) => log.warn({ err: error }, 'site.deleted consumer could not start; retrying'),
    },
  );
}
