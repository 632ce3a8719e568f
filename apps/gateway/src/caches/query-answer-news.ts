import { SUBJECTS, type Bus, type Subscription } from '@sightline/bus';
import type { QueryAnswerCache } from './query-answer-cache.js';
import type { ShareSites } from '../share/share-sites.js';

/**
 * The news that drops cached query answers and share-hash lookups on every gateway
 * replica (plain subscriptions, like report-context-news.ts: every replica sees every
 * message). New data for a past window arrives only through an import, so
 * `import.progress` (and `report-data.changed`: an import deleted) drops the site's
 * answers; a site's timezone, deletion or settings
 * (the public-dashboard flag among them) drop both; a plan or membership change drops
 * the share lookups that carry the plan.
 */
export async function subscribeAnswerNews(bus: Bus, answers: QueryAnswerCache, shares: ShareSites): Promise<Subscription[]> {
  const subscriptions: Subscription[] = [];
  const forgetSite = (siteId: number) => {
    answers.forgetSite(siteId);
    shares.forgetSite(siteId);
  };
  try {
    subscriptions.push(await bus.subscribe(SUBJECTS.importProgress, (progress) => answers.forgetSite(progress.site_id)));
    subscriptions.push(await bus.subscribe(SUBJECTS.reportDataChanged, (changed) => answers.forgetSite(changed.site_id)));
    subscriptions.push(await bus.subscribe(SUBJECTS.siteUpdated, (updated) => forgetSite(updated.site_id)));
    subscriptions.push(await bus.subscribe(SUBJECTS.siteDeleted, (deleted) => forgetSite(deleted.site_id)));
    subscriptions.push(await bus.subscribe(SUBJECTS.settingsChanged, (changed) => forgetSite(changed.site_id)));
    subscriptions.push(
      await bus.subscribe(SUBJECTS.reportAccessChanged, (change) => {
        if (change.site_id !== undefined) shares.forgetSite(change.site_id);
        if (change.account_id !== undefined) shares.forgetAccount(change.account_id);
      }),
    );
  } catch (error) {
    await Promise.allSettled(subscriptions.map((s) => s.stop()));
    throw error;
  }
  return subscriptions;
}
