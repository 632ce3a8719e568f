import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@sightline/testkit';
import { startE2eServer, type E2eServer } from './test-support/e2e-server.js';
import { ApiClient, freshIp, register, type Registered } from './test-support/api-client.js';

// The screen attribute end to end, on the whole service in this process: the tracker's
// viewport width (`w`) through collection and ingest, and an import's `screen` column,
// read back over POST /query as the visit:screen dimension and the screen filter.
const DESKTOP_CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36';

interface Answer {
  results: Array<{ dimensions?: Record<string, string>; metrics: Record<string, number> }>;
  code?: string;
}

describe('visit:screen through tracker, ingest, import and query', () => {
  let server: E2eServer;
  let client: ApiClient;
  let owner: Registered;
  let siteId = 0;
  let host = '';
  const stamp = Date.now().toString(36);
  const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
  /** yesterday and today (UTC): the live events' window whatever the hour */
  const live = () => [day(-1), day(0)];
  const IMPORTED = ['2024-03-01', '2024-03-01'];

  const ask = async (body: Record<string, unknown>): Promise<Answer> => {
    const answer = await client.request<Answer>('POST', '/api/v1/query', { token: owner.token, body: { site_id: siteId, metrics: ['visitors'], ...body } });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body;
  };
  /** visitors per screen class in the window */
  const byScreen = async (dateRange: string[], filters: unknown[] = []) =>
    Object.fromEntries(
      (await ask({ date_range: dateRange, dimensions: ['visit:screen'], filters })).results.map((r) => [r.dimensions!['visit:screen'], r.metrics.visitors]),
    );
  const visitors = async (dateRange: string[], filters: unknown[]) => (await ask({ date_range: dateRange, filters })).results[0]!.metrics.visitors;

  beforeAll(async () => {
    server = await startE2eServer({ env: { DEFAULT_TIMEZONE: 'UTC' } });
    client = server.api.withIp(freshIp());
    owner = await register(client, server.smtp, `screen.${stamp}@mail.sightline-e2e.net`);
    host = `screen-${stamp}.sightline-e2e.net`;
    const site = await client.request<{ site_id: number; script_url: string }>('POST', '/api/v1/sites', {
      token: owner.token,
      body: { url: `https://${host}`, timezone: 'UTC' },
    });
    expect(site.status).toBe(201);
    siteId = site.body.site_id;
    const key = /\/js\/([A-Za-z0-9]+)\.js$/.exec(site.body.script_url)![1]!;

    // one visitor (own address) per width, on both sides of each class edge; one sends no width
    const widths: Array<number | undefined> = [575, 576, 991, 992, 1439, 1440, undefined];
    for (const [i, w] of widths.entries()) {
      const event = { k: key, n: 'pageview', u: `https://${host}/p${i}`, d: host, ...(w === undefined ? {} : { w }) };
      const sent = await fetch(`${server.sightline.url}/api/event`, {
        method: 'POST',
        body: JSON.stringify(event),
        headers: { 'content-type': 'text/plain', 'x-forwarded-for': freshIp(), 'user-agent': DESKTOP_CHROME },
      });
      expect(sent.status).toBe(202);
    }
    const stored = async () =>
      Number((await server.sightline.events!.query<{ c: number }>('SELECT count() AS c FROM sessions WHERE site_id = {site:UInt64}', { site: siteId }))[0]!.c);
    await waitFor(async () => (await stored()) === widths.length, 15_000);

    // an import: a class name in any case, a width, none
    const ndjson = [
      { timestamp: '2024-03-01T10:00:00Z', name: 'pageview', visitor_id: 'i1', pathname: '/', screen: 'mobile' },
      { timestamp: '2024-03-01T10:01:00Z', name: 'pageview', visitor_id: 'i1', pathname: '/b' },
      { timestamp: '2024-03-01T11:00:00Z', name: 'pageview', visitor_id: 'i2', pathname: '/', screen: 1500 },
      { timestamp: '2024-03-01T12:00:00Z', name: 'pageview', visitor_id: 'i3', pathname: '/', screen: 991 },
      { timestamp: '2024-03-01T13:00:00Z', name: 'pageview', visitor_id: 'i4', pathname: '/' },
    ]
      .map((row) => JSON.stringify(row))
      .join('\n');
    const upload = await fetch(`${server.sightline.url}/api/v1/sites/${siteId}/imports`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/x-ndjson', 'x-forwarded-for': freshIp() },
      body: ndjson,
    });
    const job = (await upload.json()) as { import_id: number };
    expect(upload.status, JSON.stringify(job)).toBe(202);
    const status = async () =>
      (await client.request<{ status: string; rows_accepted: number }>('GET', `/api/v1/sites/${siteId}/imports/${job.import_id}`, { token: owner.token })).body;
    await waitFor(async () => (await status()).status !== 'queued' && (await status()).status !== 'running', 20_000);
    expect((await status()).status).toBe('completed');
    expect((await status()).rows_accepted).toBe(5);
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
  });

  it('ingest: the tracker’s width becomes the visit’s class, each edge on its side, no width (not set)', async () => {
    // 575 Mobile; 576, 991 Tablet; 992, 1439 Laptop; 1440 Desktop; none (not set)
    expect(await byScreen(live())).toEqual({ Mobile: 1, Tablet: 2, Laptop: 2, Desktop: 1, '(not set)': 1 });
  });

  it('import: a class name (any case) or a width, classified like live traffic', async () => {
    expect(await byScreen(IMPORTED)).toEqual({ Mobile: 1, Tablet: 1, Desktop: 1, '(not set)': 1 });
  });

  it('filters on screen: is, is_not, contains, and the empty label', async () => {
    expect(await visitors(live(), [{ field: 'screen', operator: 'is', values: ['Tablet'] }])).toBe(2);
    expect(await visitors(live(), [{ field: 'screen', operator: 'is', values: ['Mobile', 'Desktop'] }])).toBe(2);
    expect(await visitors(live(), [{ field: 'screen', operator: 'is_not', values: ['Laptop'] }])).toBe(5);
    expect(await visitors(live(), [{ field: 'screen', operator: 'contains', values: ['top'] }])).toBe(3);
    expect(await visitors(live(), [{ field: 'screen', operator: 'is', values: ['(not set)'] }])).toBe(1);
    // a filter and the breakdown together; an imported visit's pageviews follow its screen
    expect(await byScreen(live(), [{ field: 'screen', operator: 'is_not', values: ['(not set)', 'Tablet'] }])).toEqual({ Mobile: 1, Laptop: 2, Desktop: 1 });
    expect(
      (await ask({ metrics: ['pageviews'], date_range: IMPORTED, filters: [{ field: 'screen', operator: 'is', values: ['Mobile'] }] })).results[0]!.metrics
        .pageviews,
    ).toBe(2);
  });

  it('answers 400 for a screen filter with a bad operator, like any visit field', async () => {
    const answer = await client.request<Answer>('POST', '/api/v1/query', {
      token: owner.token,
      body: { site_id: siteId, metrics: ['visitors'], date_range: live(), filters: [{ field: 'screen', operator: 'matches', values: ['Mobile'] }] },
    });
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('invalid_filter');
  });
});
