import type { SessionEvent } from '../sessions/session-event.js';
import type { Drop, DropReason } from './drop-reasons.js';
import type { IngestPorts, TrackedSite } from './ports.js';
import { countryVerdict, hostnameVerdict, ipVerdict } from './steps/counting-filters.js';
import { eventTime, parseMessage } from './steps/parse-message.js';
import { isSpamReferrer } from './steps/spam-referrer.js';
import { sessionEvent } from './steps/session-event.js';

/** An event that passed every drop rule: enriched, not yet identified. IP and UA live only in memory, for the visitor hash. */
export interface PreparedEvent {
  site: TrackedSite;
  /** `visitor_id` is '' until the pipeline identifies the visitor and sets it */
  event: SessionEvent;
  ip: string;
  ua: string;
}

export type Prepared = { ok: true; value: PreparedEvent } | { ok: false; drop: Drop };

function drop(reason: DropReason, siteId: number, category: string, at: Date): Prepared {
  return { ok: false, drop: { reason, site_id: siteId, crawler_category: category, at } };
}

const PAGE_OPTIONS = { hashRouting: false };

/**
 * The steps of one collected event, in order; each refusal names its reason and
 * nothing here writes anything:
 *  1. parse the message and its time (steps/parse-message.ts)
 *  2. resolve the site: first, only so drop counts carry its id
 *  3. not a visitor: a bot, referrer spam (steps/spam-referrer.ts)
 *  4. not counted: an unknown site, one whose tracking stopped
 *  5. the page URL
 *  6. the site's counting filters: hostname, IP, then country after geo (steps/counting-filters.ts)
 *  7. enrich into the session event (steps/session-event.ts)
 * The refusal order is the brief's. Per event, so the steps are plain calls: no
 * closure or step object per event.
 */
export async function prepareEvent(raw: unknown, ports: IngestPorts): Promise<Prepared> {
  const msg = parseMessage(raw);
  const at = msg && eventTime(msg);
  if (!msg || !at) return drop('invalid', 0, '', ports.clock());

  const site = await ports.sites.resolve(msg.k);
  const siteId = site?.site_id ?? 0;

  const bot = ports.enricher.detectBot(msg.ua);
  if (bot.bot) return drop('bot', siteId, bot.category, at);
  if (isSpamReferrer(msg.r, ports.enricher)) return drop('referrer_spam', siteId, '', at);

  if (!site) return drop('unknown_site', 0, '', at);
  if (!site.tracking_active) return drop('tracking_inactive', siteId, '', at);

  const page = ports.enricher.parsePage(msg.u, PAGE_OPTIONS);
  if (!page) return drop('invalid_url', siteId, '', at);

  const refused = hostnameVerdict(site, page.hostname) ?? ipVerdict(site, msg.ip);
  if (refused) return drop(refused, siteId, '', at);
  const geo = ports.geo.lookup(msg.ip);
  const countryRefused = countryVerdict(site, geo.country);
  if (countryRefused) return drop(countryRefused, siteId, '', at);

  return { ok: true, value: { site, ip: msg.ip, ua: msg.ua, event: sessionEvent(msg, site, page, geo, at, ports.enricher) } };
}
