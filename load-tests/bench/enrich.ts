// Throughput of the pure enrichment steps on the fixture UAs and typical inputs (one core).
import { readFileSync } from 'node:fs';
import { detectBot } from '../../apps/ingest/src/enrich/bot.js';
import { classifyChannel } from '../../apps/ingest/src/enrich/channel.js';
import { parsePage } from '../../apps/ingest/src/enrich/page.js';
import { isReferrerSpam } from '../../apps/ingest/src/enrich/referrer-spam.js';
import { resolveSource } from '../../apps/ingest/src/enrich/source.js';
import { parseUserAgent } from '../../apps/ingest/src/enrich/user-agent.js';

const uas = (
  JSON.parse(readFileSync(new URL('../../apps/ingest/src/enrich/fixtures/user-agents.json', import.meta.url), 'utf8')) as {
    cases: Array<{ ua: string }>;
  }
).cases.map((c) => c.ua);

function perSecond(run: (i: number) => unknown, n = 50_000): number {
  for (let i = 0; i < 1000; i++) run(i);
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) run(i);
  return Math.round(n / (Number(process.hrtime.bigint() - start) / 1e9));
}

export async function benchEnrich(): Promise<Record<string, string | number>> {
  const referrers = ['https://www.google.co.uk/search?q=x', 'https://news.ycombinator.com/item?id=1', 'https://someblog.dev/p', ''];
  return {
    'parseUserAgent (parses/s, fixture UAs)': perSecond((i) => parseUserAgent(uas[i % uas.length]!)),
    'detectBot (checks/s, browser UAs: full scan)': perSecond((i) => detectBot(uas[i % uas.length]!)),
    'isReferrerSpam (checks/s)': perSecond((i) => isReferrerSpam(i % 2 ? 'sub.0-0.fr' : 'www.example.org')),
    'parsePage (parses/s)': perSecond((i) => parsePage(`https://www.example.com/blog/${i}?utm_source=x`, { hashRouting: false })),
    'resolveSource (resolves/s)': perSecond((i) =>
      resolveSource({ referrer: referrers[i % 4], pageUrl: 'https://example.com/?utm_medium=cpc', pageHost: 'example.com' }),
    ),
    'classifyChannel (classifies/s)': perSecond((i) =>
      classifyChannel({
        source: 'Google',
        referrerHost: i % 2 ? 'www.google.com' : 'someblog.dev',
        utm_source: '',
        utm_medium: '',
        utm_campaign: '',
        click_id: '',
      }),
    ),
  };
}
