import type { LoadScenario } from './scenario.js';

/** What a dashboard asks when it opens: every shape of POST /query, plus /props. */
const QUERIES: Array<{ name: string; body: Record<string, unknown> }> = [
  { name: 'aggregate 30d', body: { metrics: ['visitors', 'visits', 'pageviews', 'bounce_rate', 'visit_duration', 'views_per_visit'], date_range: '30d' } },
  { name: 'timeseries day 30d', body: { metrics: ['visitors', 'pageviews'], date_range: '30d', dimensions: ['time:day'] } },
  { name: 'timeseries hour 7d', body: { metrics: ['visitors'], date_range: '7d', dimensions: ['time:hour'] } },
  { name: 'breakdown page', body: { metrics: ['visitors', 'pageviews', 'bounce_rate'], date_range: '30d', dimensions: ['event:page'], limit: 10 } },
  { name: 'breakdown source', body: { metrics: ['visitors', 'bounce_rate', 'visit_duration'], date_range: '30d', dimensions: ['visit:source'], limit: 10 } },
  { name: 'breakdown country', body: { metrics: ['visitors'], date_range: '30d', dimensions: ['visit:country'], limit: 10 } },
  {
    name: 'filtered breakdown',
    body: { metrics: ['visitors'], date_range: '30d', dimensions: ['visit:browser'], filters: [{ field: 'page', operator: 'contains', values: ['/blog'] }] },
  },
  { name: 'compare previous_period', body: { metrics: ['visitors', 'bounce_rate'], date_range: '7d', compare: 'previous_period' } },
  { name: 'realtime', body: { metrics: ['visitors'], date_range: 'realtime', dimensions: ['time:minute'] } },
];

export const dashboardQueries: LoadScenario = {
  name: 'dashboard-queries',
  description: 'POST /api/v1/query over aggregate, time series, breakdown, compare and realtime, plus GET /props',
  vus: 10,
  durationSeconds: 10,
  thresholds: { p95Ms: 300, maxErrorRate: 0.01 },
  request(ctx, i) {
    const headers = { authorization: `Bearer ${ctx.apiKey}`, 'content-type': 'application/json' };
    if (i % (QUERIES.length + 1) === QUERIES.length) {
      return { name: 'GET /props', method: 'GET', path: `/api/v1/props?site_id=${ctx.siteId}&date_range=30d`, headers, expect: [200] };
    }
    const q = QUERIES[i % (QUERIES.length + 1)]!;
    return { name: `query ${q.name}`, method: 'POST', path: '/api/v1/query', headers, body: JSON.stringify({ site_id: ctx.siteId, ...q.body }), expect: [200] };
  },
};
