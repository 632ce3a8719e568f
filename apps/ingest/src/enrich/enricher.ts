import { LRUCache } from 'lru-cache';
import type { Enricher, UserAgentInfo } from '../pipeline/ports.js';
import { detectBot } from './bot.js';
import { classifyChannel } from './channel.js';
import { parsePage } from './page.js';
import { isReferrerSpam } from './referrer-spam.js';
import { resolveSource } from './source.js';
import { parseUserAgent } from './user-agent.js';

/**
 * The enrichment steps behind the pipeline's `Enricher` port. User-Agent parsing is
 * the slowest step (~8k/s) while real traffic repeats a few thousand UA strings, so
 * both UA verdicts are memoised per process (bounded; UA text lives only in memory).
 */
export function createEnricher(options: { uaCacheSize?: number } = {}): Enricher {
  const max = options.uaCacheSize ?? 20_000;
  const agents = new LRUCache<string, UserAgentInfo>({ max });
  const bots = new LRUCache<string, { category: string } | false>({ max });
  return {
    parseUserAgent(ua) {
      let info = agents.get(ua);
      if (!info) agents.set(ua, (info = parseUserAgent(ua)));
      return info;
    },
    detectBot(ua) {
      let verdict = bots.get(ua);
      if (verdict === undefined) bots.set(ua, (verdict = detectBot(ua) ?? false));
      return verdict ? { bot: true, category: verdict.category } : { bot: false, category: '' };
    },
    isReferrerSpam,
    parsePage,
    resolveSource: (input) => resolveSource(input),
    classifyChannel: (source) =>
      classifyChannel({
        source: source.source,
        referrerHost: source.referrer_host,
        utm_source: source.utm_source,
        utm_medium: source.utm_medium,
        utm_campaign: source.utm_campaign,
        click_id: source.click_id,
      }),
  };
}
