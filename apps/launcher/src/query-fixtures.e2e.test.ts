import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@sightline/config';
import { startSmtpSink, type SmtpSink } from '@sightline/mailer/testing';
import { createLogger } from '@sightline/telemetry';
import { backendGate, createTestDatabase, makeTempDir, type TestDatabase } from '@sightline/testkit';
import { startSightline, type RunningSightline } from './start-sightline.js';
import { ApiClient, freshIp, register, type Registered } from './test-support/api-client.js';
import { BERLIN_ROWS, CORE_ROWS, COUNTING_ROWS, EDGE_ROWS, toNdjson } from './test-support/query-fixture-data.js';

// The query fixture suite (issue 12): hand-built histories go in THROUGH THE IMPORT
// PATH (POST /imports → stage → sort → sessionize → write, the product's own code),
// live events through POST /api/event, and every answer is read over POST /query
// and checked against numbers derived by hand in the comments.
// Why HTTP in the launcher: apps may not import other apps (tools/check-boundaries.mjs),
// so only here can a test drive ingest's import path and query's answers together.
const pgGate = await backendGate('postgres');

type Metrics = Record<string, number | null>;
interface Row {
  dimensions?: Record<string, string>;
  labels?: Record<string, string>;
  metrics: Metrics;
  comparison?: { metrics: Metrics; change: Metrics };
}
interface Answer {
  results: Row[];
  meta?: { total: number; limit: number; offset: number; has_more: boolean };
  has_import: boolean;
  query: Record<string, unknown>;
  code?: string;
}

const W: [string, string] = ['2024-03-04', '2024-03-10'];
const P: [string, string] = ['2024-02-26', '2024-03-03'];
const VISIT_METRICS = ['visitors', 'visits', 'pageviews', 'bounce_rate', 'visit_duration', 'views_per_visit', 'engagement_time'];

describe.skipIf(!pgGate.available)('query fixtures through the import path', () => {
  let database: TestDatabase;
  let dataDir: Awaited<ReturnType<typeof makeTempDir>>;
  let smtp: SmtpSink;
  let sightline: RunningSightline;
  let client: ApiClient;
  let owner: Registered;
  let core: number;
  let berlin: number;
  let counting: number;
  const stamp = Date.now().toString(36);

  async function createSite(name: string, timezone: string): Promise<{ site_id: number; script_url: string }> {
    const site = await client.request<{ site_id: number; script_url: string }>('POST', '/api/v1/sites', {
      token: owner.token,
      body: { url: `https://${name}-${stamp}.sightline-e2e.net`, timezone },
    });
    expect(site.status).toBe(201);
    return site.body;
  }

  /** Uploads NDJSON and waits for the job to finish; every line must be accepted. */
  async function importRows(siteId: number, ndjson: string, lines: number): Promise<void> {
    const response = await fetch(`${sightline.url}/api/v1/sites/${siteId}/imports`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/x-ndjson', 'x-forwarded-for': freshIp() },
      body: ndjson,
    });
    const created = (await response.json()) as { import_id: number; errors: unknown[] };
    expect(response.status, JSON.stringify(created)).toBe(202);
    const deadline = Date.now() + 20_000;
    for (;;) {
      const job = await client.request<{ status: string; rows_accepted: number; errors: unknown[] }>(
        'GET',
        `/api/v1/sites/${siteId}/imports/${created.import_id}`,
        { token: owner.token },
      );
      if (job.body.status === 'completed') {
        expect([job.body.rows_accepted, job.body.errors]).toEqual([lines, []]);
        return;
      }
      if (job.body.status === 'failed' || Date.now() > deadline) throw new Error(`import ended ${JSON.stringify(job.body)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  const ask = async (body: Record<string, unknown>, siteId = core): Promise<Answer> => {
    const answer = await client.request<Answer>('POST', '/api/v1/query', { token: owner.token, body: { site_id: siteId, ...body } });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body;
  };
  const aggregate = async (body: Record<string, unknown>, siteId = core) => (await ask(body, siteId)).results[0]!.metrics;
  /** [dimension value, metrics] per row */
  const rowsOf = async (body: Record<string, unknown>, siteId = core) => {
    const dimension = (body.dimensions as string[])[0]!;
    return (await ask(body, siteId)).results.map((r) => [r.dimensions![dimension], r.metrics]);
  };
  const setWeekStart = async (weekStart: number) => {
    const patched = await client.request('PATCH', `/api/v1/sites/${core}`, { token: owner.token, body: { week_start: weekStart } });
    expect(patched.status).toBe(200);
  };

  beforeAll(async () => {
    database = await createTestDatabase(pgGate.url, 'sightline_query_fixtures_e2e');
    dataDir = await makeTempDir();
    smtp = await startSmtpSink();
    const config = loadConfig({
      SIGHTLINE_DATA_DIR: dataDir.path,
      DATABASE_URL: database.url,
      SMTP_URL: `smtp://127.0.0.1:${smtp.port}?ignoreTLS=true`,
      PORT: '0',
      HOST: '127.0.0.1',
      TRUSTED_PROXIES: '127.0.0.1,::1',
      DEFAULT_TIMEZONE: 'UTC',
    });
    sightline = await startSightline({ config, log: createLogger({ level: 'silent' }), target: 'all' });
    client = new ApiClient(sightline.url!).withIp(freshIp());
    owner = await register(client, smtp, `qfix.${stamp}@mail.sightline-e2e.net`);
    core = (await createSite('core', 'UTC')).site_id;
    berlin = (await createSite('berlin', 'Europe/Berlin')).site_id;
    for (const goal of [{ event_name: 'signup' }, { page_path: '/pricing' }]) {
      expect((await client.request('POST', `/api/v1/sites/${core}/goals`, { token: owner.token, body: goal })).status).toBe(201);
    }
    await importRows(core, toNdjson(CORE_ROWS), CORE_ROWS.length);
    await importRows(berlin, toNdjson(BERLIN_ROWS), BERLIN_ROWS.length);
    counting = (await createSite('counting', 'America/Santiago')).site_id;
    await importRows(counting, toNdjson(COUNTING_ROWS), COUNTING_ROWS.length);
  }, 120_000);

  afterAll(async () => {
    await sightline?.stop();
    await smtp?.close();
    await dataDir?.remove();
    await database?.drop();
  });

  describe('every metric in every shape', () => {
    it('aggregate: all visit metrics over W', async () => {
      // sessions S1..S4: visitors a, b, c = 3; visits 4; pageviews 2 + 1 + 3 + 1 = 7;
      // bounces S2, S4 → 2/4 = 50 %; duration (600 + 0 + 1200 + 0) / 4 = 450 s;
      // views per visit 7/4 = 1.75; engagement (30 000 + 10 000) ms / 4 visits / 1000 = 10 s
      const answer = await ask({ metrics: VISIT_METRICS, date_range: W });
      expect(answer.results).toEqual([
        { metrics: { visitors: 3, visits: 4, pageviews: 7, bounce_rate: 50, visit_duration: 450, views_per_visit: 1.75, engagement_time: 10 } },
      ]);
      expect(answer.has_import).toBe(true);
      expect(answer.query).toMatchObject({ site_id: core, date_range: W });
    });

    it('time series by day: a zero-filled row per day, null averages on empty days', async () => {
      const empty = { visitors: 0, visits: 0, pageviews: 0, bounce_rate: 0, visit_duration: null, views_per_visit: 0, engagement_time: null };
      expect(await rowsOf({ metrics: VISIT_METRICS, dimensions: ['time:day'], date_range: W })).toEqual([
        ['2024-03-04', empty],
        // S1: 2 pageviews, 600 s, 30 s engaged
        ['2024-03-05', { visitors: 1, visits: 1, pageviews: 2, bounce_rate: 0, visit_duration: 600, views_per_visit: 2, engagement_time: 30 }],
        // S2: a bounce, 10 s engaged
        ['2024-03-06', { visitors: 1, visits: 1, pageviews: 1, bounce_rate: 100, visit_duration: 0, views_per_visit: 1, engagement_time: 10 }],
        ['2024-03-07', empty],
        // S3 + S4 (one visitor): 4 pageviews over 2 visits, one bounce, (1200 + 0) / 2 s, no engagement
        ['2024-03-08', { visitors: 1, visits: 2, pageviews: 4, bounce_rate: 50, visit_duration: 600, views_per_visit: 2, engagement_time: 0 }],
        ['2024-03-09', empty],
        ['2024-03-10', empty],
      ]);
      // `time` is the alias of time:day
      expect((await ask({ metrics: ['visitors'], dimensions: ['time'], date_range: W })).results.map((r) => r.metrics.visitors)).toEqual([0, 1, 1, 0, 1, 0, 0]);
    });

    it('time series by hour and by month', async () => {
      const hours = await rowsOf({ metrics: ['visitors', 'visits', 'pageviews'], dimensions: ['time:hour'], date_range: ['2024-03-08', '2024-03-08'] });
      expect(hours).toHaveLength(24);
      expect(hours[0]![0]).toBe('2024-03-08 00:00');
      // S3 starts at 09:00 (3 pageviews), S4 at 10:00 (1 pageview)
      expect(hours.filter(([, m]) => (m as Metrics).visitors !== 0)).toEqual([
        ['2024-03-08 09:00', { visitors: 1, visits: 1, pageviews: 3 }],
        ['2024-03-08 10:00', { visitors: 1, visits: 1, pageviews: 1 }],
      ]);
      // February: d; March: a (03-01 and 03-05), b, c
      expect(await rowsOf({ metrics: ['visitors', 'pageviews'], dimensions: ['time:month'], date_range: ['2024-02-01', '2024-03-31'] })).toEqual([
        ['2024-02-01', { visitors: 1, pageviews: 2 }],
        ['2024-03-01', { visitors: 3, pageviews: 8 }],
      ]);
    });

    it('breakdowns: the metrics each dimension computes', async () => {
      // sources: S1 Google (600 s), S3 news,letter (1200 s), S2 + S4 Direct / None (b, c; both bounce)
      expect(await rowsOf({ metrics: ['visitors', 'visit_duration', 'bounce_rate'], dimensions: ['visit:source'], date_range: W })).toEqual([
        ['Direct / None', { visitors: 2, visit_duration: 0, bounce_rate: 100 }],
        ['Google', { visitors: 1, visit_duration: 600, bounce_rate: 0 }],
        ['news,letter', { visitors: 1, visit_duration: 1200, bounce_rate: 0 }],
      ]);
      expect(await rowsOf({ metrics: ['visitors'], dimensions: ['visit:channel'], date_range: W })).toEqual([
        ['Direct', { visitors: 2 }],
        ['Email', { visitors: 1 }],
        ['Organic Search', { visitors: 1 }],
      ]);
      // entry: / (S1, S3: a, c; (600 + 1200) / 2), /pricing (S4), /docs/50%_off (S2)
      expect(await rowsOf({ metrics: ['visitors', 'visits', 'visit_duration'], dimensions: ['visit:entry_page'], date_range: W })).toEqual([
        ['/', { visitors: 2, visits: 2, visit_duration: 900 }],
        ['/docs/50%_off', { visitors: 1, visits: 1, visit_duration: 0 }],
        ['/pricing', { visitors: 1, visits: 1, visit_duration: 0 }],
      ]);
      // exits: /pricing (S1, S4 of 3 pageviews → 66.7 %), /docs/50%_off (S2, 1 of 1), /docs/a\b (S3, 1 of 1)
      expect(await rowsOf({ metrics: ['visitors', 'visits', 'exit_rate'], dimensions: ['visit:exit_page'], date_range: W })).toEqual([
        ['/pricing', { visitors: 2, visits: 2, exit_rate: 66.7 }],
        ['/docs/50%_off', { visitors: 1, visits: 1, exit_rate: 100 }],
        ['/docs/a\\b', { visitors: 1, visits: 1, exit_rate: 100 }],
      ]);
      // pages: bounce_rate over sessions grouped by entry page (/: S1, S3 → 0; /pricing: S4 → 100;
      // /docs/50%_off: S2 → 100; /docs/a\b: no entries → 0); time on page = engaged s / sessions with
      // engagement there (/pricing 30 / 1, /docs/50%_off 10 / 1); scroll = mean max scroll per session
      expect(
        await rowsOf({ metrics: ['visitors', 'pageviews', 'bounce_rate', 'time_on_page', 'scroll_depth'], dimensions: ['event:page'], date_range: W }),
      ).toEqual([
        ['/', { visitors: 2, pageviews: 2, bounce_rate: 0, time_on_page: null, scroll_depth: null }],
        ['/pricing', { visitors: 2, pageviews: 3, bounce_rate: 100, time_on_page: 30, scroll_depth: 80 }],
        ['/docs/50%_off', { visitors: 1, pageviews: 1, bounce_rate: 100, time_on_page: 10, scroll_depth: 40 }],
        ['/docs/a\\b', { visitors: 1, pageviews: 1, bounce_rate: 0, time_on_page: null, scroll_depth: null }],
      ]);
      // example.org: S1, S3, S4 (a, c): 6 pageviews, (600 + 1200 + 0) / 3 = 600 s, 1 of 3 bounced, 6/3;
      // shop.example.org: S2
      expect(
        await rowsOf({
          metrics: ['visitors', 'visits', 'pageviews', 'visit_duration', 'bounce_rate', 'views_per_visit'],
          dimensions: ['event:hostname'],
          date_range: W,
        }),
      ).toEqual([
        ['example.org', { visitors: 2, visits: 3, pageviews: 6, visit_duration: 600, bounce_rate: 33, views_per_visit: 2 }],
        ['shop.example.org', { visitors: 1, visits: 1, pageviews: 1, visit_duration: 0, bounce_rate: 100, views_per_visit: 1 }],
      ]);
      expect(await rowsOf({ metrics: ['pageviews'], dimensions: ['event:status_code'], date_range: W })).toEqual([
        ['200', { pageviews: 6 }],
        ['404', { pageviews: 1 }],
      ]);
      // custom events only: signup by a and c
      expect(await rowsOf({ metrics: ['visitors', 'events'], dimensions: ['event:name'], date_range: W })).toEqual([['signup', { visitors: 2, events: 2 }]]);
      expect(
        await rowsOf({
          metrics: ['visitors', 'events'],
          dimensions: ['event:props:plan'],
          date_range: W,
          filters: [{ field: 'event', operator: 'is', values: ['signup'] }],
        }),
      ).toEqual([
        ['pro', { visitors: 1, events: 1 }],
        ['team, "gold"', { visitors: 1, events: 1 }],
      ]);
      // goals: signup (a, c; 2 conversions), Visit /pricing (a, c; 3 pageviews); 2 of 3 visitors = 66.67 %
      expect(await rowsOf({ metrics: ['visitors', 'events', 'conversion_rate'], dimensions: ['event:goal'], date_range: W })).toEqual([
        ['Visit /pricing', { visitors: 2, events: 3, conversion_rate: 66.67 }],
        ['signup', { visitors: 2, events: 2, conversion_rate: 66.67 }],
      ]);
    });

    it('breakdowns by visit attributes, geo with labels, folders', async () => {
      const by = async (dimension: string) => rowsOf({ metrics: ['visitors'], dimensions: [dimension], date_range: W });
      const flat = (rows: unknown[][]) => rows.map(([value, m]) => [value, (m as Metrics).visitors]);
      expect(flat(await by('visit:browser'))).toEqual([
        ['Chrome', 1],
        ['Firefox', 1],
        ['Safari', 1],
      ]);
      // imported versions as written (SEMANTICS): C's 120.0.6099, B's 17.1.2
      expect(flat(await by('visit:browser_version'))).toEqual([
        ['120.0.6099', 1],
        ['128.0', 1],
        ['17.1.2', 1],
      ]);
      // ties in visitors order by value in byte order: upper case first
      expect(flat(await by('visit:os'))).toEqual([
        ['GNU/Linux', 1],
        ['Windows', 1],
        ['iOS', 1],
      ]);
      expect(flat(await by('visit:os_version'))).toEqual([
        ['(not set)', 1],
        ['10', 1],
        ['17.1.2', 1],
      ]);
      expect(flat(await by('visit:device'))).toEqual([
        ['Desktop', 2],
        ['Mobile', 1],
      ]);
      // c has sessions with and without utm: counted under both values
      expect(flat(await by('visit:utm_source'))).toEqual([
        ['(not set)', 3],
        ['news,letter', 1],
      ]);
      expect(flat(await by('visit:utm_medium'))).toEqual([
        ['(not set)', 3],
        ['email', 1],
      ]);
      expect(flat(await by('visit:utm_campaign'))).toEqual([
        ['(not set)', 2],
        ['spring, "big" sale', 1],
      ]);
      expect(flat(await by('visit:utm_content'))).toEqual([
        ['(not set)', 3],
        ['a%b_c\\d', 1],
      ]);
      expect(flat(await by('visit:utm_term'))).toEqual([
        ['(not set)', 2],
        ["it's", 1],
      ]);
      expect(flat(await by('visit:referrer'))).toEqual([
        ['Direct / None', 2],
        ['www.google.com/search', 1],
      ]);
      expect(flat(await by('event:folder'))).toEqual([
        ['/', 2],
        ['/docs', 2],
        ['/pricing', 2],
      ]);
      const countries = await ask({ metrics: ['visitors'], dimensions: ['visit:country'], date_range: W });
      expect(countries.results).toEqual([
        { dimensions: { 'visit:country': 'DE' }, labels: { 'visit:country': 'Germany' }, metrics: { visitors: 2 } },
        { dimensions: { 'visit:country': 'FR' }, labels: { 'visit:country': 'France' }, metrics: { visitors: 1 } },
      ]);
      expect(flat(await by('visit:region'))).toEqual([
        ['DE-BE', 1],
        ['DE-BY', 1],
        ['FR-IDF', 1],
      ]);
      // regions are labelled with their English names (ISO 3166-2's own are local: "Bayern")
      const regions = await ask({ metrics: ['visitors'], dimensions: ['visit:region'], date_range: W });
      expect(regions.results.map((row: Row) => row.labels)).toEqual([
        { 'visit:region': 'Berlin' },
        { 'visit:region': 'Bavaria' },
        { 'visit:region': 'Île-de-France' },
      ]);
      // GeoNames ids as strings: Munich, Berlin, Paris
      expect(flat(await by('visit:city'))).toEqual([
        ['2867714', 1],
        ['2950159', 1],
        ['2988507', 1],
      ]);
    });
  });

  describe('every filter operator on visit and event fields', () => {
    const visits = (filters: unknown[]) => aggregate({ metrics: ['visitors', 'visits'], date_range: W, filters });
    const f = (field: string, operator: string, ...values: string[]) => ({ field, operator, values });

    it('visit fields: is, is_not, contains, does_not_contain, several values OR-ed', async () => {
      expect(await visits([f('browser', 'is', 'Chrome')])).toEqual({ visitors: 1, visits: 2 }); // c: S3, S4
      expect(await visits([f('browser', 'is_not', 'Chrome')])).toEqual({ visitors: 2, visits: 2 }); // a, b
      expect(await visits([f('browser', 'contains', 'ref')])).toEqual({ visitors: 1, visits: 1 }); // Firefox
      expect(await visits([f('browser', 'does_not_contain', 'fox', 'ari')])).toEqual({ visitors: 1, visits: 2 }); // Chrome only
      expect(await visits([f('browser', 'is', 'Chrome', 'Firefox')])).toEqual({ visitors: 2, visits: 3 });
      expect(await visits([f('browser', 'is', 'chrome')])).toEqual({ visitors: 0, visits: 0 }); // exact
      expect(await visits([f('country', 'is', 'FR')])).toEqual({ visitors: 1, visits: 1 });
      expect(await visits([f('region', 'is_not', 'DE-BY')])).toEqual({ visitors: 2, visits: 2 });
      expect(await visits([f('city', 'is', '2867714')])).toEqual({ visitors: 1, visits: 2 });
      expect(await visits([f('source', 'is', 'Google')])).toEqual({ visitors: 1, visits: 1 });
      expect(await visits([f('channel', 'contains', 'Search')])).toEqual({ visitors: 1, visits: 1 });
      expect(await visits([f('referrer', 'contains', 'google')])).toEqual({ visitors: 1, visits: 1 });
      expect(await visits([f('entry_page', 'is', '/')])).toEqual({ visitors: 2, visits: 2 }); // S1, S3
      expect(await visits([f('exit_page', 'contains', 'docs')])).toEqual({ visitors: 2, visits: 2 }); // S2, S3
      expect(await visits([f('exit_page', 'does_not_contain', 'docs')])).toEqual({ visitors: 2, visits: 2 }); // S1, S4
      expect(await visits([f('device', 'is', 'Mobile')])).toEqual({ visitors: 1, visits: 1 });
      expect(await visits([f('os_version', 'is', '17.1.2')])).toEqual({ visitors: 1, visits: 1 });
      expect(await visits([f('browser_version', 'contains', '12')])).toEqual({ visitors: 2, visits: 3 }); // 120.0.6099, 128.0
    });

    it('values with commas, quotes, %, _ and backslashes match literally', async () => {
      expect(await visits([f('utm_campaign', 'is', 'spring, "big" sale')])).toEqual({ visitors: 1, visits: 1 });
      // the comma is not a separator: the two halves match nothing exactly
      expect(await visits([f('utm_campaign', 'is', 'spring', ' "big" sale')])).toEqual({ visitors: 0, visits: 0 });
      expect(await visits([f('utm_campaign', 'contains', '"big"')])).toEqual({ visitors: 1, visits: 1 });
      expect(await visits([f('utm_term', 'is', "it's")])).toEqual({ visitors: 1, visits: 1 });
      expect(await visits([f('utm_source', 'is', 'news,letter')])).toEqual({ visitors: 1, visits: 1 });
      expect(await visits([f('utm_content', 'is', 'a%b_c\\d')])).toEqual({ visitors: 1, visits: 1 });
      expect(await visits([f('utm_content', 'contains', '%b_c\\')])).toEqual({ visitors: 1, visits: 1 });
      // as LIKE patterns these would match (`_` any character, `%` anything): they must not
      expect(await visits([f('utm_content', 'contains', 'a_b')])).toEqual({ visitors: 0, visits: 0 });
      expect(await visits([f('utm_content', 'contains', 'a%d')])).toEqual({ visitors: 0, visits: 0 });
      expect(await visits([f('utm_content', 'contains', 'c\\\\d')])).toEqual({ visitors: 0, visits: 0 });
      expect(await visits([f('page', 'is', '/docs/a\\b')])).toEqual({ visitors: 1, visits: 1 });
      expect(await visits([f('page', 'contains', '0%_')])).toEqual({ visitors: 1, visits: 1 });
      expect(await visits([f('page', 'contains', '0__')])).toEqual({ visitors: 0, visits: 0 });
    });

    it('event fields keep whole sessions on session metrics and matching rows on pageviews', async () => {
      const all = (filters: unknown[]) => aggregate({ metrics: ['visitors', 'visits', 'pageviews', 'bounce_rate', 'visit_duration'], date_range: W, filters });
      // sessions with a /pricing pageview: S1, S3, S4; pageviews of /pricing: 3; bounce over sessions
      // that entered on /pricing (S4) = 100; duration (600 + 1200 + 0) / 3
      expect(await all([f('page', 'is', '/pricing')])).toEqual({ visitors: 2, visits: 3, pageviews: 3, bounce_rate: 100, visit_duration: 600 });
      // sessions with an event not on /pricing: S1, S2, S3; 7 − 3 pageviews; entered elsewhere: S1, S2, S3 → 1 bounce of 3
      expect(await all([f('page', 'is_not', '/pricing')])).toEqual({ visitors: 3, visits: 3, pageviews: 4, bounce_rate: 33, visit_duration: 600 });
      // S2 and S3 hold /docs pages; both entered elsewhere than /docs except S2 (a bounce)
      expect(await all([f('page', 'contains', 'docs')])).toEqual({ visitors: 2, visits: 2, pageviews: 2, bounce_rate: 100, visit_duration: 600 });
      // sessions with a non-docs event: S1, S3, S4; 5 pageviews; entered off /docs: S1, S3, S4 → 1 of 3
      expect(await all([f('page', 'does_not_contain', 'docs')])).toEqual({ visitors: 2, visits: 3, pageviews: 5, bounce_rate: 33, visit_duration: 600 });
      expect(await all([f('hostname', 'is', 'shop.example.org')])).toEqual({ visitors: 1, visits: 1, pageviews: 1, bounce_rate: 100, visit_duration: 0 });
      expect(await all([f('code', 'is', '404')])).toEqual({ visitors: 1, visits: 1, pageviews: 1, bounce_rate: 100, visit_duration: 0 });
      // the custom-event filter: sessions in which signup fired (S1, S3), all their pageviews
      expect(await all([f('event', 'is', 'signup')])).toEqual({ visitors: 2, visits: 2, pageviews: 5, bounce_rate: 0, visit_duration: 900 });
      // filters AND-ed: Chrome sessions (S3, S4) that viewed /pricing
      expect(await all([f('browser', 'is', 'Chrome'), f('page', 'is', '/pricing')])).toEqual({
        visitors: 1,
        visits: 2,
        pageviews: 2,
        bounce_rate: 100,
        visit_duration: 600,
      });
      // a filter on a breakdown: pages that answered 404
      expect(await rowsOf({ metrics: ['pageviews'], dimensions: ['event:page'], date_range: W, filters: [f('code', 'is', '404')] })).toEqual([
        ['/docs/50%_off', { pageviews: 1 }],
      ]);
    });
  });

  describe('time zones and week starts', () => {
    it('DST in Europe/Berlin: 23 hourly buckets in spring, 25 in autumn; days follow local midnight', async () => {
      const spring = await rowsOf({ metrics: ['visitors'], dimensions: ['time:hour'], date_range: ['2024-03-31', '2024-03-31'] }, berlin);
      expect(spring).toHaveLength(23);
      expect(spring.map(([label]) => label)).not.toContain('2024-03-31 02:00');
      // f at 00:30 CET, g at 03:30 CEST, h at 23:59 CEST
      expect(spring.filter(([, m]) => (m as Metrics).visitors !== 0).map(([label]) => label)).toEqual([
        '2024-03-31 00:00',
        '2024-03-31 03:00',
        '2024-03-31 23:00',
      ]);
      const autumn = await rowsOf({ metrics: ['visitors'], dimensions: ['time:hour'], date_range: ['2024-10-27', '2024-10-27'] }, berlin);
      expect(autumn).toHaveLength(25);
      // 02:00 twice: j in the first (CEST), k and l in the second (CET)
      expect(autumn.slice(1, 5)).toEqual([
        ['2024-10-27 01:00', { visitors: 0 }],
        ['2024-10-27 02:00', { visitors: 1 }],
        ['2024-10-27 02:00', { visitors: 2 }],
        ['2024-10-27 03:00', { visitors: 0 }],
      ]);
      // e is 03-30 local, f g h 03-31, i 04-01 (00:30 CEST is still 03-31 in UTC)
      expect(await rowsOf({ metrics: ['visitors'], dimensions: ['time:day'], date_range: ['2024-03-30', '2024-04-01'] }, berlin)).toEqual([
        ['2024-03-30', { visitors: 1 }],
        ['2024-03-31', { visitors: 3 }],
        ['2024-04-01', { visitors: 1 }],
      ]);
      expect(await aggregate({ metrics: ['visitors'], date_range: ['2024-03-31', '2024-03-31'] }, berlin)).toEqual({ visitors: 3 });
    });

    it('weeks start on the site’s week_start (all seven); a partial first week is labelled with the window’s first day', async () => {
      const weeks = async () => rowsOf({ metrics: ['visitors'], dimensions: ['time:week'], date_range: ['2024-02-26', '2024-03-10'] });
      const flat = (rows: unknown[][]) => rows.map(([label, m]) => [label, (m as Metrics).visitors]);
      try {
        // Monday: 02-26..03-03 (d, a), 03-04..03-10 (a, b, c)
        await setWeekStart(1);
        expect(flat(await weeks())).toEqual([
          ['2024-02-26', 2],
          ['2024-03-04', 3],
        ]);
        // Sunday: 02-26..03-02 (d, a), 03-03..03-09 (a, b, c), 03-10 (nobody)
        await setWeekStart(0);
        expect(flat(await weeks())).toEqual([
          ['2024-02-26', 2],
          ['2024-03-03', 3],
          ['2024-03-10', 0],
        ]);
        // Wednesday: 02-26..02-27 (nobody), 02-28..03-05 (d, a), 03-06..03-10 (b, c)
        await setWeekStart(3);
        expect(flat(await weeks())).toEqual([
          ['2024-02-26', 0],
          ['2024-02-28', 2],
          ['2024-03-06', 2],
        ]);
        // Tuesday: 02-26 (nobody), 02-27..03-04 (d, a), 03-05..03-10 (a, b, c)
        await setWeekStart(2);
        expect(flat(await weeks())).toEqual([
          ['2024-02-26', 0],
          ['2024-02-27', 2],
          ['2024-03-05', 3],
        ]);
        // Thursday: 02-26..02-28 (d), 02-29..03-06 (a, b), 03-07..03-10 (c)
        await setWeekStart(4);
        expect(flat(await weeks())).toEqual([
          ['2024-02-26', 1],
          ['2024-02-29', 2],
          ['2024-03-07', 1],
        ]);
        // Friday: 02-26..02-29 (d), 03-01..03-07 (a, b), 03-08..03-10 (c)
        await setWeekStart(5);
        expect(flat(await weeks())).toEqual([
          ['2024-02-26', 1],
          ['2024-03-01', 2],
          ['2024-03-08', 1],
        ]);
        // Saturday: 02-26..03-01 (d, a), 03-02..03-08 (a, b, c), 03-09..03-10 (nobody)
        await setWeekStart(6);
        expect(flat(await weeks())).toEqual([
          ['2024-02-26', 2],
          ['2024-03-02', 3],
          ['2024-03-09', 0],
        ]);
      } finally {
        await setWeekStart(1);
      }
    });
  });

  describe('compare in all three shapes', () => {
    it('aggregate: previous_period and the explicit pair agree; percent change for counts, difference for rates', async () => {
      // P: S5 (d, 2 pageviews, 120 s), S6 (a, bounce): visitors 2, visits 2, pageviews 3, bounce 50,
      // duration 60, 1.5 per visit, engagement 0
      const expected = {
        metrics: { visitors: 3, visits: 4, pageviews: 7, bounce_rate: 50, visit_duration: 450, views_per_visit: 1.75, engagement_time: 10 },
        comparison: {
          metrics: { visitors: 2, visits: 2, pageviews: 3, bounce_rate: 50, visit_duration: 60, views_per_visit: 1.5, engagement_time: 0 },
          // 3/2 → +50 %, 4/2 → +100 %, 7/3 → +133 %, 50 − 50 = 0, 450/60 → +650 %, 1.75/1.5 → +17 %, from 0 → null
          change: { visitors: 50, visits: 100, pageviews: 133, bounce_rate: 0, visit_duration: 650, views_per_visit: 17, engagement_time: null },
        },
      };
      const previous = await ask({ metrics: VISIT_METRICS, date_range: W, compare: 'previous_period' });
      expect(previous.results).toEqual([expected]);
      expect(previous.query.compare).toEqual(P);
      expect((await ask({ metrics: VISIT_METRICS, date_range: W, compare: P })).results).toEqual([expected]);
    });

    it('time series: bucket by bucket, aligned by position', async () => {
      // W days 0..6 against P days 0..6: d on P day 2 (02-28), a on P day 4 (03-01)
      const series = await ask({ metrics: ['visitors'], dimensions: ['time:day'], date_range: W, compare: 'previous_period' });
      expect(series.results.map((r) => [r.metrics.visitors, r.comparison!.metrics.visitors, r.comparison!.change.visitors])).toEqual([
        [0, 0, null],
        [1, 0, null],
        [1, 1, 0],
        [0, 0, null],
        [1, 1, 0],
        [0, 0, null],
        [0, 0, null],
      ]);
      // one Monday week against the one before: 3 visitors against d and a
      const weekly = await ask({ metrics: ['visitors', 'pageviews'], dimensions: ['time:week'], date_range: W, compare: 'previous_period' });
      expect(weekly.results).toEqual([
        {
          dimensions: { 'time:week': '2024-03-04' },
          metrics: { visitors: 3, pageviews: 7 },
          comparison: expect.objectContaining({ metrics: { visitors: 2, pageviews: 3 }, change: { visitors: 50, pageviews: 133 } }),
        },
      ]);
      const explicit = await ask({ metrics: ['visitors'], dimensions: ['time:day'], date_range: W, compare: P });
      expect(explicit.results).toEqual(series.results);
    });

    it('breakdown: each row against its own previous value; none for status codes and goals', async () => {
      // P sources: S5 Google (d), S6 Direct / None (a)
      const expected = [
        { dimensions: { 'visit:source': 'Direct / None' }, metrics: { visitors: 2 }, comparison: { metrics: { visitors: 1 }, change: { visitors: 100 } } },
        { dimensions: { 'visit:source': 'Google' }, metrics: { visitors: 1 }, comparison: { metrics: { visitors: 1 }, change: { visitors: 0 } } },
        { dimensions: { 'visit:source': 'news,letter' }, metrics: { visitors: 1 }, comparison: { metrics: { visitors: 0 }, change: { visitors: null } } },
      ];
      expect((await ask({ metrics: ['visitors'], dimensions: ['visit:source'], date_range: W, compare: 'previous_period' })).results).toEqual(expected);
      expect((await ask({ metrics: ['visitors'], dimensions: ['visit:source'], date_range: W, compare: P })).results).toEqual(expected);
      // a page of the compared breakdown keeps each row's own previous value
      const paged = await ask({ metrics: ['visitors'], dimensions: ['visit:source'], date_range: W, compare: 'previous_period', limit: 1, offset: 1 });
      expect([paged.results, paged.meta]).toEqual([[expected[1]], { total: 3, limit: 1, offset: 1, has_more: true }]);
      // compare applies the filters to both windows: Chrome is c in W (S3, S4) and d in P (S5)
      const chrome = await ask({
        metrics: ['visitors', 'visits'],
        date_range: W,
        compare: 'previous_period',
        filters: [{ field: 'browser', operator: 'is', values: ['Chrome'] }],
      });
      expect(chrome.results).toEqual([
        { metrics: { visitors: 1, visits: 2 }, comparison: { metrics: { visitors: 1, visits: 1 }, change: { visitors: 0, visits: 100 } } },
      ]);
      for (const dimension of ['event:status_code', 'event:goal']) {
        const answer = await ask({
          metrics: [dimension === 'event:goal' ? 'visitors' : 'pageviews'],
          dimensions: [dimension],
          date_range: W,
          compare: 'previous_period',
        });
        expect(answer.results.length).toBeGreaterThan(0);
        for (const row of answer.results) expect(row).not.toHaveProperty('comparison');
      }
    });
  });

  describe('pagination and empty windows', () => {
    const page = (paging: Record<string, number>) => ask({ metrics: ['visitors'], dimensions: ['visit:browser'], date_range: W, ...paging });
    const names = (answer: Answer) => answer.results.map((r) => r.dimensions!['visit:browser']);

    it('pages through a breakdown: has_more, offset past the end, limits clamped to 1..1000', async () => {
      const first = await page({ limit: 2 });
      expect([names(first), first.meta]).toEqual([['Chrome', 'Firefox'], { total: 3, limit: 2, offset: 0, has_more: true }]);
      const second = await page({ limit: 2, offset: 2 });
      expect([names(second), second.meta]).toEqual([['Safari'], { total: 3, limit: 2, offset: 2, has_more: false }]);
      const exact = await page({ limit: 1, offset: 2 });
      expect([names(exact), exact.meta]).toEqual([['Safari'], { total: 3, limit: 1, offset: 2, has_more: false }]);
      const past = await page({ limit: 2, offset: 50 });
      expect([names(past), past.meta]).toEqual([[], { total: 3, limit: 2, offset: 50, has_more: false }]);
      const zero = await page({ limit: 0 });
      expect([names(zero), zero.meta]).toEqual([['Chrome'], { total: 3, limit: 1, offset: 0, has_more: true }]);
      const huge = await page({ limit: 5000 });
      expect([names(huge), huge.meta]).toEqual([['Chrome', 'Firefox', 'Safari'], { total: 3, limit: 1000, offset: 0, has_more: false }]);
      const defaults = await page({});
      expect(defaults.meta).toEqual({ total: 3, limit: 100, offset: 0, has_more: false });
    });

    it('empty windows: zeros and nulls in every shape, no import flag', async () => {
      const empty: [string, string] = ['2023-01-02', '2023-01-03'];
      const answer = await ask({ metrics: VISIT_METRICS, date_range: empty });
      expect(answer.results).toEqual([
        { metrics: { visitors: 0, visits: 0, pageviews: 0, bounce_rate: 0, visit_duration: null, views_per_visit: 0, engagement_time: null } },
      ]);
      expect(answer.has_import).toBe(false);
      expect(await rowsOf({ metrics: ['visitors', 'visit_duration'], dimensions: ['time:day'], date_range: empty })).toEqual([
        ['2023-01-02', { visitors: 0, visit_duration: null }],
        ['2023-01-03', { visitors: 0, visit_duration: null }],
      ]);
      const breakdown = await ask({ metrics: ['visitors'], dimensions: ['event:page'], date_range: empty });
      expect([breakdown.results, breakdown.meta]).toEqual([[], { total: 0, limit: 100, offset: 0, has_more: false }]);
      const goals = await ask({ metrics: ['visitors', 'conversion_rate'], dimensions: ['event:goal'], date_range: empty });
      expect(goals.results).toEqual([]);
    });
  });

  describe('a visit across midnight, engagement per page, wildcard characters in goals', () => {
    let edge: number;
    const TWO_DAYS: [string, string] = ['2024-05-01', '2024-05-02'];
    beforeAll(async () => {
      edge = (await createSite('edge', 'UTC')).site_id;
      for (const goal of [{ page_path: '/docs/*' }, { page_path: '/a_b' }, { event_name: 'Download' }]) {
        expect((await client.request('POST', `/api/v1/sites/${edge}/goals`, { token: owner.token, body: goal })).status).toBe(201);
      }
      // uploaded newest first: the import path sorts each visitor's events before sessionizing
      await importRows(edge, toNdjson([...EDGE_ROWS].reverse()), EDGE_ROWS.length);
    });

    it('session metrics count the visits overlapping the window; pageviews only those inside it', async () => {
      const metrics = ['visitors', 'visits', 'pageviews', 'bounce_rate', 'visit_duration'];
      // 05-01: M only (its /a_b pageview), whole-visit duration 1260 s
      expect(await aggregate({ metrics, date_range: ['2024-05-01', '2024-05-01'] }, edge)).toEqual({
        visitors: 1,
        visits: 1,
        pageviews: 1,
        bounce_rate: 0,
        visit_duration: 1260,
      });
      // 05-02: M (overlaps), N, O; pageviews /docs/x, /axb, /a_b, /docs = 4; (1260 + 240 + 0) / 3 = 500; O bounced
      expect(await aggregate({ metrics, date_range: ['2024-05-02', '2024-05-02'] }, edge)).toEqual({
        visitors: 3,
        visits: 3,
        pageviews: 4,
        bounce_rate: 33,
        visit_duration: 500,
      });
      expect(await aggregate({ metrics, date_range: TWO_DAYS }, edge)).toEqual({ visitors: 3, visits: 3, pageviews: 5, bounce_rate: 33, visit_duration: 500 });
    });

    it('time series: a visit counts once, in the bucket of its start clamped to the window', async () => {
      // (compile-sql's choice; SEMANTICS speaks of windows, not buckets.) Over two days M is
      // counted on 05-01 only, while its 00:10 pageview — and so m as a visitor — is on 05-02.
      const metrics = ['visitors', 'visits', 'pageviews', 'visit_duration', 'bounce_rate'];
      expect(await rowsOf({ metrics, dimensions: ['time:day'], date_range: TWO_DAYS }, edge)).toEqual([
        ['2024-05-01', { visitors: 1, visits: 1, pageviews: 1, visit_duration: 1260, bounce_rate: 0 }],
        // N (240 s) and O (a bounce); visitors m, n, o from their events
        ['2024-05-02', { visitors: 3, visits: 2, pageviews: 4, visit_duration: 120, bounce_rate: 50 }],
      ]);
      // a one-bucket series equals the aggregate over the same day (M overlaps it)
      expect(await rowsOf({ metrics, dimensions: ['time:day'], date_range: ['2024-05-02', '2024-05-02'] }, edge)).toEqual([
        ['2024-05-02', { visitors: 3, visits: 3, pageviews: 4, visit_duration: 500, bounce_rate: 33 }],
      ]);
    });

    it('time on page and scroll depth over sessions; bounce rate by entry page', async () => {
      // /a_b: engaged (10 + 20) s in M and 30 s in N over 2 sessions = 30 s; max scroll per session 70 and 50 → 60;
      // entered by M only (not a bounce). /docs: entered by O (a bounce). `_` sorts before `x`.
      expect(
        await rowsOf(
          { metrics: ['visitors', 'pageviews', 'bounce_rate', 'time_on_page', 'scroll_depth'], dimensions: ['event:page'], date_range: TWO_DAYS },
          edge,
        ),
      ).toEqual([
        ['/a_b', { visitors: 2, pageviews: 2, bounce_rate: 0, time_on_page: 30, scroll_depth: 60 }],
        ['/axb', { visitors: 1, pageviews: 1, bounce_rate: 0, time_on_page: null, scroll_depth: null }],
        ['/docs', { visitors: 1, pageviews: 1, bounce_rate: 100, time_on_page: null, scroll_depth: null }],
        ['/docs/x', { visitors: 1, pageviews: 1, bounce_rate: 0, time_on_page: null, scroll_depth: null }],
      ]);
    });

    it('page goals: `*` is the only wildcard (`_` is literal); conversion over all visitors', async () => {
      // of 3 visitors: Download by m and n; /a_b viewed by m and n (2 pageviews; /axb is not /a_b);
      // /docs/* matches /docs/x (m) but not /docs
      expect(await rowsOf({ metrics: ['visitors', 'events', 'conversion_rate'], dimensions: ['event:goal'], date_range: TWO_DAYS }, edge)).toEqual([
        ['Download', { visitors: 2, events: 2, conversion_rate: 66.67 }],
        ['Visit /a_b', { visitors: 2, events: 2, conversion_rate: 66.67 }],
        ['Visit /docs/*', { visitors: 1, events: 1, conversion_rate: 33.33 }],
      ]);
    });

    it('a property breakdown shows (none) where the event carries no value; GET /props lists the key', async () => {
      expect(
        await rowsOf(
          {
            metrics: ['visitors', 'events'],
            dimensions: ['event:props:file'],
            date_range: TWO_DAYS,
            filters: [{ field: 'event', operator: 'is', values: ['Download'] }],
          },
          edge,
        ),
      ).toEqual([
        ['(none)', { visitors: 1, events: 1 }],
        ['x,y.pdf', { visitors: 1, events: 1 }],
      ]);
      const props = await client.request('GET', `/api/v1/props?site_id=${edge}&date_range=2024-05-01,2024-05-02`, { token: owner.token });
      expect([props.status, props.body]).toEqual([200, { props: [{ key: 'file', events: 1 }], date_range: TWO_DAYS }]);
    });
  });

  it('imported and live data together: both counted, has_import only where the import reaches', async () => {
    const site = await createSite('mixed', 'UTC');
    const key = /\/js\/([A-Za-z0-9]+)\.js$/.exec(site.script_url)![1]!;
    const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
    const yesterday = day(-1);
    // imported: x (2 pageviews, one visit) and y, yesterday
    const imported = [
      { timestamp: `${yesterday}T10:00:00Z`, name: 'pageview', visitor_id: 'x', pathname: '/' },
      { timestamp: `${yesterday}T10:05:00Z`, name: 'pageview', visitor_id: 'x', pathname: '/about' },
      { timestamp: `${yesterday}T11:00:00Z`, name: 'pageview', visitor_id: 'y', pathname: '/' },
    ];
    await importRows(site.site_id, toNdjson(imported), 3);
    // live: one visitor (same IP and UA) with two pageviews, today
    for (const path of ['/', '/live']) {
      const response = await fetch(`${sightline.url}/api/event`, {
        method: 'POST',
        headers: {
          'content-type': 'text/plain',
          'x-forwarded-for': '198.51.100.23',
          'user-agent': 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0',
        },
        body: JSON.stringify({ k: key, n: 'pageview', u: `https://mixed-${stamp}.sightline-e2e.net${path}`, d: `mixed-${stamp}.sightline-e2e.net` }),
      });
      expect(response.status).toBe(202);
    }
    const both: [string, string] = [yesterday, day(0)];
    // the live batch is written asynchronously: wait for its 2 pageviews
    await expect.poll(async () => (await aggregate({ metrics: ['pageviews'], date_range: both }, site.site_id)).pageviews, { timeout: 15_000 }).toBe(5);
    const answer = await ask({ metrics: ['visitors', 'visits', 'pageviews', 'bounce_rate'], date_range: both }, site.site_id);
    // x, y (imported) + the live visitor: 3 visitors, 3 visits, 5 pageviews, y bounced → 33 %
    expect([answer.results[0]!.metrics, answer.has_import]).toEqual([{ visitors: 3, visits: 3, pageviews: 5, bounce_rate: 33 }, true]);
    expect(await rowsOf({ metrics: ['visitors', 'pageviews'], dimensions: ['event:page'], date_range: both }, site.site_id)).toEqual([
      ['/', { visitors: 3, pageviews: 3 }],
      ['/about', { visitors: 1, pageviews: 1 }],
      ['/live', { visitors: 1, pageviews: 1 }],
    ]);
    // today alone holds only live traffic
    const today = await ask({ metrics: ['visitors'], date_range: [day(0), day(0)] }, site.site_id);
    expect([today.results[0]!.metrics.visitors, today.has_import]).toEqual([1, false]);
    // relative windows: 7d holds both; month holds yesterday only when it is in this month
    const week = await ask({ metrics: ['visitors', 'pageviews'], date_range: '7d' }, site.site_id);
    expect([week.results[0]!.metrics, week.has_import]).toEqual([{ visitors: 3, pageviews: 5 }, true]);
    const sameMonth = yesterday.slice(0, 7) === day(0).slice(0, 7);
    const month = await ask({ metrics: ['visitors'], date_range: 'month' }, site.site_id);
    expect([month.results[0]!.metrics.visitors, month.has_import]).toEqual(sameMonth ? [3, true] : [1, false]);
    // realtime: the live visitor's 2 pageviews, in minute buckets of the last half hour
    const realtime = await ask({ metrics: ['pageviews'], dimensions: ['time:minute'], date_range: 'realtime' }, site.site_id);
    expect(realtime.results.reduce((sum, r) => sum + (r.metrics.pageviews ?? 0), 0)).toBe(2);
    expect(realtime.has_import).toBe(false);
  });
  describe('counting rules on imported visits (SEMANTICS, issue 29; derivations beside COUNTING_ROWS)', () => {
    const EXITS: [string, string] = ['2024-06-04', '2024-06-04'];
    const HOSTS: [string, string] = ['2024-06-05', '2024-06-05'];
    const hostIs = (value: string) => [{ field: 'hostname', operator: 'is', values: [value] }];

    it('an exit_rate breakdown orders and pages by exit rate, then page', async () => {
      expect(await rowsOf({ metrics: ['exit_rate'], dimensions: ['visit:exit_page'], date_range: EXITS }, counting)).toEqual([
        ['/b', { exit_rate: 100 }],
        ['/d', { exit_rate: 100 }],
        ['/a', { exit_rate: 66.7 }],
      ]);
      const page2 = await ask({ metrics: ['exit_rate'], dimensions: ['visit:exit_page'], date_range: EXITS, limit: 1, offset: 1 }, counting);
      expect([page2.results.map((r) => r.dimensions), page2.meta]).toEqual([[{ 'visit:exit_page': '/d' }], { total: 3, limit: 1, offset: 1, has_more: true }]);
    });

    it('filtering to an exit page keeps its exit rate', async () => {
      const filtered = {
        metrics: ['visits', 'exit_rate'],
        dimensions: ['visit:exit_page'],
        date_range: EXITS,
        filters: [{ field: 'exit_page', operator: 'is', values: ['/a'] }],
      };
      expect(await rowsOf(filtered, counting)).toEqual([['/a', { visits: 2, exit_rate: 66.7 }]]);
    });

    it('a hostname filter keeps visits by where they entered (acquisition, entry page) or left (exit page)', async () => {
      const by = (dimension: string, value: string) =>
        rowsOf({ metrics: ['visitors'], dimensions: [dimension], date_range: HOSTS, filters: hostIs(value) }, counting);
      expect(await by('visit:source', 'a.example.org')).toEqual([['Google', { visitors: 1 }]]);
      expect(await by('visit:source', 'b.example.org')).toEqual([
        ['Bing', { visitors: 1 }],
        ['Google', { visitors: 1 }],
      ]);
      expect(await by('visit:entry_page', 'a.example.org')).toEqual([['/x', { visitors: 1 }]]);
      expect(await by('visit:exit_page', 'a.example.org')).toEqual([['/x', { visitors: 1 }]]);
      expect(await by('visit:exit_page', 'b.example.org')).toEqual([['/y', { visitors: 2 }]]);
    });

    it('event:hostname counts a visit under each hostname it touched', async () => {
      expect(
        await rowsOf(
          { metrics: ['visitors', 'visits', 'pageviews', 'visit_duration', 'bounce_rate'], dimensions: ['event:hostname'], date_range: HOSTS },
          counting,
        ),
      ).toEqual([
        ['b.example.org', { visitors: 3, visits: 3, pageviews: 3, visit_duration: 60, bounce_rate: 33 }],
        ['a.example.org', { visitors: 2, visits: 2, pageviews: 2, visit_duration: 90, bounce_rate: 0 }],
      ]);
    });

    it('imported versions are kept as written', async () => {
      const day: [string, string] = ['2024-06-06', '2024-06-06'];
      expect(await rowsOf({ metrics: ['visitors'], dimensions: ['visit:browser_version'], date_range: day }, counting)).toEqual([['56', { visitors: 1 }]]);
      expect(await rowsOf({ metrics: ['visitors'], dimensions: ['visit:os_version'], date_range: day }, counting)).toEqual([['14', { visitors: 1 }]]);
    });

    it('live visits across two hostnames: each counted under both, filters by entry and exit hostname; non-web pages dropped', async () => {
      const site = await createSite('hosts', 'UTC');
      const key = /\/js\/([A-Za-z0-9]+)\.js$/.exec(site.script_url)![1]!;
      const base = `hosts-${stamp}.sightline-e2e.net`;
      const collect = async (ip: string, url: string) => {
        const response = await fetch(`${sightline.url}/api/event`, {
          method: 'POST',
          headers: {
            'content-type': 'text/plain',
            'x-forwarded-for': ip,
            'user-agent': 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0',
          },
          body: JSON.stringify({ k: key, n: 'pageview', u: url, d: base }),
        });
        expect(response.status).toBe(202);
      };
      // not web pages: accepted by collection, dropped by ingest (invalid_url); sent first from
      // visitor 1's address, so its shard has handled them once its pageviews are counted
      await collect('198.51.100.31', `ftp://a.${base}/file`);
      await collect('198.51.100.31', 'chrome-extension://abcdefghijklmnop/popup.html');
      // visitor 1 enters on a. /x and leaves from b. /y; visitor 2 enters on b. /z and leaves from a. /x
      await collect('198.51.100.31', `https://a.${base}/x`);
      await collect('198.51.100.31', `https://b.${base}/y`);
      await collect('198.51.100.32', `https://b.${base}/z`);
      await collect('198.51.100.32', `https://a.${base}/x`);
      const today = new Date().toISOString().slice(0, 10);
      const window: [string, string] = [today, today];
      await expect.poll(async () => (await aggregate({ metrics: ['pageviews'], date_range: window }, site.site_id)).pageviews, { timeout: 15_000 }).toBe(4);
      const [a, b] = [`a.${base}`, `b.${base}`];
      expect(await rowsOf({ metrics: ['visitors', 'pageviews'], dimensions: ['event:hostname'], date_range: window }, site.site_id)).toEqual([
        [a, { visitors: 2, pageviews: 2 }],
        [b, { visitors: 2, pageviews: 2 }],
      ]);
      const by = (dimension: string, host: string) =>
        rowsOf({ metrics: ['visitors'], dimensions: [dimension], date_range: window, filters: hostIs(host) }, site.site_id);
      expect(await by('visit:entry_page', a)).toEqual([['/x', { visitors: 1 }]]);
      expect(await by('visit:exit_page', a)).toEqual([['/x', { visitors: 1 }]]);
      expect(await by('visit:exit_page', b)).toEqual([['/y', { visitors: 1 }]]);
      // the two dropped events counted nowhere (they would have started visitor 1's visit on a.)
      expect(await aggregate({ metrics: ['visitors', 'visits', 'pageviews'], date_range: window }, site.site_id)).toEqual({
        visitors: 2,
        visits: 2,
        pageviews: 4,
      });
    });

    it("a day starts at its first local instant: Santiago's repeated 23:00 hour is the 6th's", async () => {
      expect(await aggregate({ metrics: ['visitors'], date_range: ['2024-04-06', '2024-04-06'] }, counting)).toEqual({ visitors: 2 });
      expect(await aggregate({ metrics: ['visitors'], date_range: ['2024-04-07', '2024-04-07'] }, counting)).toEqual({ visitors: 1 });
    });
  });
});
