import { SUBJECTS, type Bus, type Subscription } from '@sightline/bus';
import type { ReportContextCache } from './report-context-cache.js';

/**
 * The news that drops {@link ReportContextCache} entries on every gateway replica. Plain
 * subscriptions, not durables: every replica must see every message (a durable shared by
 * replicas would split them), and a replica that missed news while down starts empty.
 */
export async function subscribeReportNews(bus: Bus, cache: ReportContextCache): Promise<Subscription[]> {
  const subscriptions: Subscription[] = [];
  try {
    subscriptions.push(await bus.subscribe(SUBJECTS.siteUpdated, (updated) => cache.forgetSite(updated.site_id)));
    subscriptions.push(await bus.subscribe(SUBJECTS.siteDeleted, (deleted) => cache.forgetSite(deleted.site_id)));
    subscriptions.push(await bus.subscribe(SUBJECTS.settingsChanged, (changed) => cache.forgetSite(changed.site_id)));
    subscriptions.push(
      await bus.subscribe(SUBJECTS.reportAccessChanged, (change) => {
        if (change.site_id !== undefined) cache.forgetSiteReach(change.site_id);
        if (change.account_id !== undefined) cache.forgetPlan(change.account_id);
      }),
    );
  } catch (error) {
    await Promise.allSettled(subscriptions.map((s) => s.stop()));
    throw error;
  }
  return subscriptions;
}
