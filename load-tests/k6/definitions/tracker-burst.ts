import type { LoadScenario } from './scenario.js';

const PAGES = ['/', '/pricing', '/blog/launch', '/docs/getting-started', '/about', '/blog/privacy-first', '/signup'];
const REFERRERS = ['', 'https://www.google.com/', 'https://news.ycombinator.com/', 'https://duckduckgo.com/', 'https://t.co/x'];

/** Tracker burst: pageviews and engagement as browsers send them (text/plain, no auth). */
export const trackerBurst: LoadScenario = {
  name: 'tracker-burst',
  description: 'POST /api/event: pageviews, engagement and a custom event from many visitors',
  vus: 50,
  durationSeconds: 10,
  thresholds: { p95Ms: 50, maxErrorRate: 0.001 },
  request(ctx, i) {
    const page = PAGES[i % PAGES.length]!;
    const kind = i % 10;
    const base = { k: ctx.trackingKey, u: `https://${ctx.siteHost}${page}`, d: ctx.siteHost, s: `tab-${i % 997}` };
    const event =
      kind < 6
        ? { ...base, n: 'pageview', r: REFERRERS[i % REFERRERS.length] || undefined }
        : kind < 9
          ? { ...base, n: 'engagement', e: 1000 + (i % 30) * 500, sd: (i * 7) % 101 }
          : { ...base, n: 'Signup', p: { plan: i % 2 ? 'pro' : 'free' } };
    return {
      name: 'POST /api/event',
      method: 'POST',
      path: '/api/event',
      headers: {
        'content-type': 'text/plain',
        'user-agent': `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.${i % 50}.0 Safari/537.36`,
      },
      body: JSON.stringify(event),
      expect: [202],
    };
  },
};
