import { SUBJECTS, type Bus, type Subscription } from '@sightline/bus';
import type { WidgetAnswerCache } from './widget-answer-cache.js';
import type { WidgetSites } from './widget-sites.js';

/**
 * The news that drops widget key lookups and widget answers on every gateway replica
 * (plain subscriptions, like query-answer-news.ts). `site.updated` carries a key
 * rotation too, so the old key stops within one bus delivery everywhere; a deleted
 * site's key stops at once anyway (the sites service no longer finds it).
 */
export async function subscribeWidgetNews(bus: Bus, sites: WidgetSites, answers: WidgetAnswerCache): Promise<Subscription[]> {
  const subscriptions: Subscription[] = [];
  const forgetSite = (siteId: number) => {
    sites.forgetSite(siteId);
    answers.forgetSite(siteId);
  };
  try {
    subscriptions.push(await bus.subscribe(SUBJECTS.siteUpdated, (updated) => forgetSite(updated.site_id)));
    subscriptions.push(await bus.subscribe(SUBJECTS.siteDeleted, (deleted) => forgetSite(deleted.site_id)));
    subscriptions.push(await bus.subscribe(SUBJECTS.settingsChanged, (changed) => answers.forgetSite(changed.site_id)));
    subscriptions.push(await bus.subscribe(SUBJECTS.importProgress, (progress) => answers.forgetSite(progress.site_id)));
    subscriptions.push(await bus.subscribe(SUBJECTS.reportDataChanged, (changed) => answers.forgetSite(changed.site_id)));
    subscriptions.push(
      await bus.subscribe(SUBJECTS.reportAccessChanged, (change) => {
        if (change.site_id !== undefined) sites.forgetSite(change.site_id);
        if (change.account_id !== undefined) sites.forgetAccount(change.account_id);
      }),
    );
  } catch (error) {
    await Promise.allSettled(subscriptions.map((s) => s.stop()));
    throw error;
  }
  return subscriptions;
}
