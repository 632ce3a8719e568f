import { SUBJECTS, type Bus, type Subscription } from '@sightline/bus';
import type { ShareSites } from '../share/share-sites.js';
import type { WidgetAnswerCache } from '../widgets/widget-answer-cache.js';
import type { WidgetSites } from '../widgets/widget-sites.js';
import type { QueryAnswerCache } from './query-answer-cache.js';
import type { ReportContextCache } from './report-context-cache.js';

/** A change of who may read a site's reports: a site's reach, or an account's plan. */
export interface AccessChange {
  site_id?: number;
  account_id?: number;
}

/** The news a per-replica cache forgets on; each cache names only what concerns it. */
export interface CacheNews {
  /** site.updated, site.deleted: timezone, name, key rotation or the site's end */
  siteChanged?: (siteId: number) => void;
  /** settings.changed: counting filters, the public-dashboard flag, … */
  settingsChanged?: (siteId: number) => void;
  /** import.progress, report-data.changed: data of past windows added or removed */
  dataChanged?: (siteId: number) => void;
  /** report-access.changed */
  accessChanged?: (change: AccessChange) => void;
}

/**
 * The one mechanism that keeps every gateway replica's caches current: one plain
 * subscription per subject, each handing its news to every cache that listens. Plain
 * subscriptions, not durables: every replica must see every message (a durable shared
 * by replicas would split them), and a replica that missed news while down starts empty.
 */
export async function subscribeCacheNews(bus: Bus, listeners: readonly CacheNews[]): Promise<Subscription[]> {
  const site = handlers(listeners, 'siteChanged');
  const settings = handlers(listeners, 'settingsChanged');
  const data = handlers(listeners, 'dataChanged');
  const access = handlers(listeners, 'accessChanged');
  const subscriptions: Subscription[] = [];
  try {
    subscriptions.push(await bus.subscribe(SUBJECTS.siteUpdated, (updated) => site.forEach((forget) => forget(updated.site_id))));
    subscriptions.push(await bus.subscribe(SUBJECTS.siteDeleted, (deleted) => site.forEach((forget) => forget(deleted.site_id))));
    subscriptions.push(await bus.subscribe(SUBJECTS.settingsChanged, (changed) => settings.forEach((forget) => forget(changed.site_id))));
    subscriptions.push(await bus.subscribe(SUBJECTS.importProgress, (progress) => data.forEach((forget) => forget(progress.site_id))));
    subscriptions.push(await bus.subscribe(SUBJECTS.reportDataChanged, (changed) => data.forEach((forget) => forget(changed.site_id))));
    subscriptions.push(await bus.subscribe(SUBJECTS.reportAccessChanged, (change) => access.forEach((forget) => forget(change))));
  } catch (error) {
    await Promise.allSettled(subscriptions.map((s) => s.stop()));
    throw error;
  }
  return subscriptions;
}

function handlers<K extends keyof CacheNews>(listeners: readonly CacheNews[], kind: K): Array<NonNullable<CacheNews[K]>> {
  return listeners.flatMap((listener) => (listener[kind] ? [listener[kind]] : []));
}

/** Keys' reach and plans: a site's change or settings drop its reach; an access change its reach or the plan. */
export function reportContextNews(cache: ReportContextCache): CacheNews {
  const forgetSite = (siteId: number) => cache.forgetSite(siteId);
  return {
    siteChanged: forgetSite,
    settingsChanged: forgetSite,
    accessChanged: (change) => {
      if (change.site_id !== undefined) cache.forgetSiteReach(change.site_id);
      if (change.account_id !== undefined) cache.forgetPlan(change.account_id);
    },
  };
}

/**
 * Cached answers (the query routes' and the widgets'): new data for a past window arrives
 * only through an import (or leaves with its deletion); a site's timezone, deletion or
 * settings change the answers too.
 */
export function answerNews(answers: Pick<QueryAnswerCache | WidgetAnswerCache, 'forgetSite'>): CacheNews {
  const forgetSite = (siteId: number) => answers.forgetSite(siteId);
  return { siteChanged: forgetSite, settingsChanged: forgetSite, dataChanged: forgetSite };
}

/**
 * Lookups that carry a site and its owner's plan (share hashes, widget keys): a site's
 * change drops it (`site.updated` carries a key rotation, so an old widget key stops
 * within one bus delivery everywhere); an access change drops the site or the account's.
 * Share lookups also carry the public-dashboard flag: `withSettings` drops them on
 * settings news.
 */
export function siteLookupNews(lookups: ShareSites | WidgetSites, withSettings: boolean): CacheNews {
  const forgetSite = (siteId: number) => lookups.forgetSite(siteId);
  return {
    siteChanged: forgetSite,
    ...(withSettings ? { settingsChanged: forgetSite } : {}),
    accessChanged: (change) => {
      if (change.site_id !== undefined) lookups.forgetSite(change.site_id);
      if (change.account_id !== undefined) lookups.forgetAccount(change.account_id);
    },
  };
}
