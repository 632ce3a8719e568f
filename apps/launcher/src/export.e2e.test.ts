import { randomBytes } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emptySessionAttributes, SCROLL_DEPTH_NONE } from '@sightline/events-schema';
import { sessionizeVisitor, type SessionEvent } from '@sightline/ingest';
import type { SmtpSink } from '@sightline/mailer/testing';
import { DIMENSIONS, propsDimension } from '@sightline/query';
import { backendGate } from '@sightline/testkit';
import { createLogger } from '@sightline/telemetry';
import type { RunningSightline } from './start-sightline.js';
import { startE2eServer, type E2eServer } from './test-support/e2e-server.js';
import { ApiClient, freshIp, register, type Registered } from './test-support/api-client.js';
import { download, type Download } from './test-support/export-download.js';
import { insertExportHistory } from './test-support/export-history.js';

// GET /api/v1/sites/{id}/export over HTTP against the started server (PostgreSQL for
// sites and keys, chDB for events). The round trip: a 100k-event site generated
// straight into the store through ingest's sessionizer (as live traffic writes it) →
// export in each format → import into an empty site → every query shape answers the
// same. CSV and Parquet are read back by ClickHouse's own readers (chDB's file()),
// which the import's NDJSON is then built from.
const pgGate = await backendGate('postgres');
const RATE_PER_HOUR = 20;
const ROUND_TRIP_EVENTS = 100_000;
const TIMEZONE = 'America/New_York';
// the history lies in March 2024 (New York changes to summer time on the 10th)
const HISTORY = { firstDay: '2024-03-01', days: 28 };
const WINDOW = '2024-02-28,2024-04-02';

interface ImportJob {
  import_id: number;
  status: string;
  rows_accepted: number;
  rows_rejected: number;
  errors: Array<{ line: number; reason: string }>;
}

type ExportLine = Record<string, unknown>;

describe.skipIf(!pgGate.available)('export over HTTP', () => {
  let server: E2eServer;
  let smtp: SmtpSink;
  let sightline: RunningSightline;
  let api: ApiClient;
  let n = 0;
  const unique = () => `${Date.now().toString(36)}${(n += 1)}`;

  beforeAll(async () => {
    server = await startE2eServer({
      postgres: { url: pgGate.url, databaseName: 'sightline_export_e2e' },
      // a loaded 2-core machine: a 100k-event import and the reports behind it may take longer than the default 10 s deadline
      env: {
        EXPORT_RATE_LIMIT_PER_HOUR: String(RATE_PER_HOUR),
        IMPORT_MAX_BYTES: String(400 * 1024 * 1024),
        DEFAULT_TIMEZONE: 'UTC',
        GRPC_DEADLINE_MS: '120000',
      },
      log: createLogger({ level: 'warn' }),
    });
    ({ sightline, api, smtp } = server);
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
  });

  async function owner(): Promise<{ who: Registered; site: (timezone?: string) => Promise<number> }> {
    const client = api.withIp(freshIp());
    const who = await register(client, smtp, `exp.${unique()}@mail.sightline-e2e.net`);
    const site = async (timezone = TIMEZONE) => {
      const created = await client.request<{ site_id: number }>('POST', '/api/v1/sites', {
        token: who.token,
        body: { url: `https://exp-${unique()}.sightline-e2e.net`, timezone },
      });
      expect(created.status).toBe(201);
      return created.body.site_id;
    };
    return { who, site };
  }

  const exportOf = (token: string, siteId: number | string, query: string): Promise<Download> =>
    download(sightline.url!, `/api/v1/sites/${siteId}/export?${query}`, { authorization: `Bearer ${token}`, 'x-forwarded-for': freshIp() });

  const events = () => sightline.events!;

  async function insertVisitor(
    siteId: number,
    visitorId: string,
    rows: Array<
      Omit<
        SessionEvent,
        'site_id' | 'visitor_id' | 'marker' | 'import_id' | 'attributes' | 'prop_keys' | 'prop_values' | 'engagement_ms' | 'scroll_depth' | 'status_code'
      > &
        Partial<SessionEvent>
    >,
  ): Promise<void> {
    const out = sessionizeVisitor(
      rows.map((r) => ({
        site_id: siteId,
        visitor_id: visitorId,
        marker: '',
        import_id: 0,
        attributes: emptySessionAttributes(),
        prop_keys: [],
        prop_values: [],
        engagement_ms: 0,
        scroll_depth: SCROLL_DEPTH_NONE,
        status_code: 0,
        ...r,
      })),
    );
    await events().insert('events', out.eventRows as unknown as Record<string, unknown>[]);
    await events().insert('sessions', out.sessionRows as unknown as Record<string, unknown>[]);
  }

  /** A file read back by ClickHouse's own reader → the import's NDJSON lines. */
  async function readBack(format: 'csv' | 'parquet', file: Buffer): Promise<ExportLine[]> {
    const path = join(tmpdir(), `sightline-export-test-${randomBytes(8).toString('hex')}.${format}`);
    await writeFile(path, file);
    try {
      const source =
        format === 'csv'
          ? `file('${path}', 'CSVWithNames', 'timestamp String, name String, visitor_id String, hostname String, pathname String, referrer String, source String, channel String, utm_source String, utm_medium String, utm_campaign String, utm_content String, utm_term String, click_id String, country String, region String, city UInt32, browser String, browser_version String, os String, os_version String, device String, screen String, props String, scroll_depth Nullable(UInt8), engagement_ms UInt32, status_code Nullable(UInt16)')`
          : `file('${path}', 'Parquet')`;
      const select = format === 'csv' ? '*' : '* EXCEPT (timestamp, props), toUnixTimestamp64Milli(timestamp) AS ms, toJSONString(props) AS props';
      const rows = await events().query<ExportLine>(`SELECT ${select} FROM ${source}`);
      await yieldToServer();
      return rows.map(({ ms, props, ...row }) => ({
        ...row,
        ...(ms === undefined ? {} : { timestamp: new Date(Number(ms)).toISOString() }),
        props: JSON.parse(props as string) as Record<string, string>,
      }));
    } finally {
      await rm(path, { force: true });
    }
  }

  /**
   * The server shares this process: long synchronous work here would stall its gRPC
   * keepalive acks past their timeout on a loaded machine, so big loops yield now and then.
   */
  const yieldToServer = () => new Promise((resolve) => setImmediate(resolve));
  const SLICE = 5_000;

  async function linesOf(format: 'ndjson' | 'csv' | 'parquet', answer: Download): Promise<ExportLine[]> {
    if (format !== 'ndjson') return readBack(format, answer.file);
    const texts = answer.file
      .toString('utf8')
      .split('\n')
      .filter((l) => l !== '');
    const out: ExportLine[] = [];
    for (let at = 0; at < texts.length; at += SLICE) {
      for (const text of texts.slice(at, at + SLICE)) out.push(JSON.parse(text) as ExportLine);
      await yieldToServer();
    }
    return out;
  }

  async function importLines(token: string, siteId: number, lines: readonly ExportLine[]): Promise<ImportJob> {
    let at = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (at >= lines.length) return controller.close();
        controller.enqueue(
          Buffer.from(
            lines
              .slice(at, at + SLICE)
              .map((l) => `${JSON.stringify(l)}\n`)
              .join(''),
          ),
        );
        at += SLICE;
      },
    });
    const response = await fetch(`${sightline.url}/api/v1/sites/${siteId}/imports`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-ndjson', 'x-forwarded-for': freshIp() },
      body,
      duplex: 'half',
    } as RequestInit);
    const created = (await response.json()) as ImportJob;
    expect(response.status, JSON.stringify(created)).toBe(202);
    const deadline = Date.now() + 120_000;
    for (;;) {
      const job = await api.request<ImportJob>('GET', `/api/v1/sites/${siteId}/imports/${created.import_id}`, { token });
      if (job.body.status === 'completed' || job.body.status === 'failed') return job.body;
      if (Date.now() > deadline) throw new Error(`import ${created.import_id} still ${job.body.status}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  /** Every query shape: aggregate, day/week/month series, every breakdown dimension (goals aside: a site without goals has none). */
  function shapes(): Array<{ label: string; body: Record<string, unknown> }> {
    const all = ['visitors', 'pageviews', 'visits', 'visit_duration', 'bounce_rate', 'views_per_visit', 'engagement_time'];
    const dateRange = WINDOW.split(',');
    const out: Array<{ label: string; body: Record<string, unknown> }> = [{ label: 'aggregate', body: { metrics: all, date_range: dateRange } }];
    for (const time of ['time:day', 'time:week', 'time:month']) out.push({ label: time, body: { metrics: all, dimensions: [time], date_range: dateRange } });
    for (const [dimension, spec] of Object.entries(DIMENSIONS)) {
      if (dimension === 'event:goal' || dimension.startsWith('time:')) continue;
      out.push({ label: dimension, body: { metrics: Object.keys(spec.metrics), dimensions: [dimension], date_range: dateRange, limit: 1000 } });
    }
    for (const key of ['plan', 'note', 'clé']) {
      for (const name of ['Signup', 'Download, PDF'])
        out.push({
          label: `event:props:${key} of ${name}`,
          body: {
            metrics: Object.keys(propsDimension.metrics),
            dimensions: [`event:props:${key}`],
            date_range: dateRange,
            limit: 1000,
            filters: [{ field: 'event', operator: 'is', values: [name] }],
          },
        });
    }
    // filters on a visit attribute and on a page, and a compared series
    out.push({
      label: 'entry pages of Hacker News visits',
      body: {
        metrics: ['visitors', 'visits', 'visit_duration'],
        dimensions: ['visit:entry_page'],
        date_range: dateRange,
        limit: 1000,
        filters: [{ field: 'source', operator: 'is', values: ['Hacker News'] }],
      },
    });
    out.push({
      label: 'sources of visits seeing /a,b,c',
      body: { metrics: all, date_range: dateRange, filters: [{ field: 'page', operator: 'is', values: ['/a,b,c'] }] },
    });
    out.push({
      label: 'day series compared',
      body: { metrics: ['visitors', 'visits', 'bounce_rate'], dimensions: ['time:day'], date_range: ['2024-03-15', '2024-03-28'], compare: 'previous_period' },
    });
    return out;
  }

  async function answersOf(token: string, siteId: number): Promise<Record<string, unknown>> {
    const out: Record<string, unknown> = {};
    for (const shape of shapes()) {
      const answer = await api.request<{ results: unknown; meta?: unknown }>('POST', '/api/v1/query', { token, body: { site_id: siteId, ...shape.body } });
      expect(answer.status, `${shape.label}: ${JSON.stringify(answer.body)}`).toBe(200);
      out[shape.label] = { results: answer.body.results, meta: answer.body.meta };
    }
    return out;
  }

  describe('round trip of a 100k-event site', () => {
    let token: string;
    let site: (timezone?: string) => Promise<number>;
    let source: number;
    let written: { events: number; sessions: number; visitors: number };
    let expected: Record<string, unknown>;

    beforeAll(async () => {
      const o = await owner();
      token = o.who.token;
      site = o.site;
      source = await site();
      written = await insertExportHistory(events(), { siteId: source, events: ROUND_TRIP_EVENTS, ...HISTORY, seed: 34 });
      expected = await answersOf(token, source);
    }, 300_000);

    it.each(['ndjson', 'csv', 'parquet'] as const)(
      '%s: export → import into an empty site → every query shape answers the same',
      async (format) => {
        const answer = await exportOf(token, source, `date_range=${WINDOW}&format=${format}`);
        expect(answer.status, JSON.stringify(answer.error)).toBe(200);
        expect(answer.headers['x-export-rows-counted']).toBe(String(written.events));
        expect(answer.trailers['x-export-rows']).toBe(String(written.events));
        const lines = await linesOf(format, answer);
        expect(lines).toHaveLength(written.events);

        const target = await site();
        const job = await importLines(token, target, lines);
        expect([job.status, job.rows_accepted, job.rows_rejected, job.errors]).toEqual(['completed', written.events, 0, []]);
        const actual = await answersOf(token, target);
        for (const label of Object.keys(expected)) expect(actual[label], label).toEqual(expected[label]);
        // the history really has every kind of row the comparison stands for
        expect((expected['aggregate'] as { results: Array<{ metrics: Record<string, number> }> }).results[0]!.metrics).toMatchObject({
          visitors: written.visitors,
          visits: written.sessions,
        });
      },
      300_000,
    );
  });

  describe('rows, formats and headers', () => {
    let token: string;
    let siteId: number;
    // visitor 1 (above 2^53): a pageview at 10:00:00.123 UTC, an engagement, then a custom event with awkward props; visitor 2: one 404 pageview
    const visitor1 = '18446744073709551557';
    const visitor2 = '9007199254740993';

    beforeAll(async () => {
      const o = await owner();
      token = o.who.token;
      siteId = await o.site('UTC');
      const attributes = {
        ...emptySessionAttributes(),
        referrer: 'news.ycombinator.com/item',
        source: 'Hacker News',
        channel: 'Organic Social',
        utm_campaign: 'a,b "c"\nd',
        country: 'DE',
        region: 'DE-BE',
        city: 2950159,
        browser: 'Firefox',
        browser_version: '125.0',
        os: 'GNU/Linux',
        device: 'Desktop',
        screen: 'Laptop',
      };
      await insertVisitor(siteId, visitor1, [
        { at: Date.parse('2024-03-01T10:00:00.123Z'), name: 'pageview', hostname: 'example.org', pathname: '/ünï,"x"', attributes, status_code: 200 },
        {
          at: Date.parse('2024-03-01T10:00:30Z'),
          name: 'engagement',
          hostname: 'example.org',
          pathname: '/ünï,"x"',
          attributes,
          engagement_ms: 30000,
          scroll_depth: 80,
        },
        {
          at: Date.parse('2024-03-01T10:01:00Z'),
          name: 'Say "hi", ok',
          hostname: 'example.org',
          pathname: '/',
          attributes,
          prop_keys: ['note', 'clé'],
          prop_values: ['line1\nline2', '☕'],
        },
      ]);
      await insertVisitor(siteId, visitor2, [
        { at: Date.parse('2024-03-02T23:59:59.999Z'), name: 'pageview', hostname: 'example.org', pathname: '/missing', status_code: 404 },
      ]);
    });

    const empty = {
      referrer: '',
      source: '',
      channel: '',
      utm_source: '',
      utm_medium: '',
      utm_campaign: '',
      utm_content: '',
      utm_term: '',
      click_id: '',
      country: '',
      region: '',
      city: 0,
      browser: '',
      browser_version: '',
      os: '',
      os_version: '',
      device: '',
      screen: '',
    };
    const visit1 = {
      ...empty,
      referrer: 'news.ycombinator.com/item',
      source: 'Hacker News',
      channel: 'Organic Social',
      utm_campaign: 'a,b "c"\nd',
      country: 'DE',
      region: 'DE-BE',
      city: 2950159,
      browser: 'Firefox',
      browser_version: '125.0',
      os: 'GNU/Linux',
      device: 'Desktop',
      screen: 'Laptop',
    };
    // in the sort key's order: day, name (bytes: 'Say…' < 'engagement' < 'pageview'), visitor, time
    const expectedLines = [
      {
        timestamp: '2024-03-01T10:01:00.000Z',
        name: 'Say "hi", ok',
        visitor_id: visitor1,
        hostname: 'example.org',
        pathname: '/',
        ...visit1,
        props: { note: 'line1\nline2', clé: '☕' },
        scroll_depth: null,
        engagement_ms: 0,
        status_code: null,
      },
      {
        timestamp: '2024-03-01T10:00:30.000Z',
        name: 'engagement',
        visitor_id: visitor1,
        hostname: 'example.org',
        pathname: '/ünï,"x"',
        ...visit1,
        props: {},
        scroll_depth: 80,
        engagement_ms: 30000,
        status_code: null,
      },
      {
        timestamp: '2024-03-01T10:00:00.123Z',
        name: 'pageview',
        visitor_id: visitor1,
        hostname: 'example.org',
        pathname: '/ünï,"x"',
        ...visit1,
        props: {},
        scroll_depth: null,
        engagement_ms: 0,
        status_code: 200,
      },
      {
        timestamp: '2024-03-02T23:59:59.999Z',
        name: 'pageview',
        visitor_id: visitor2,
        hostname: 'example.org',
        pathname: '/missing',
        ...empty,
        props: {},
        scroll_depth: null,
        engagement_ms: 0,
        status_code: 404,
      },
    ];

    it('ndjson: the import format line by line, gzipped, named, with the row count before and after', async () => {
      const answer = await exportOf(token, siteId, 'date_range=2024-03-01,2024-03-02&format=ndjson');
      expect(answer.status).toBe(200);
      expect(answer.headers['content-type']).toBe('application/gzip');
      expect(answer.headers['content-encoding']).toBeUndefined();
      expect(answer.headers['content-disposition']).toBe(`attachment; filename="sightline-site-${siteId}-2024-03-01-to-2024-03-02.ndjson.gz"`);
      expect(answer.headers['transfer-encoding']).toBe('chunked');
      expect(answer.headers['cache-control']).toBe('no-store');
      expect(answer.headers['x-export-rows-counted']).toBe('4');
      expect(answer.trailers['x-export-rows']).toBe('4');
      expect(answer.body.subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
      const text = answer.file.toString('utf8');
      expect(text.endsWith('\n')).toBe(true);
      expect(
        text
          .split('\n')
          .filter((l) => l !== '')
          .map((l) => JSON.parse(l)),
      ).toEqual(expectedLines);
      // no address or browser string anywhere: the store has none
      expect(text).not.toMatch(/"(ip|user_agent|ua)"/);
    });

    it('csv: the same columns under a header, RFC 4180 quoting, null as an empty field', async () => {
      const answer = await exportOf(token, siteId, 'date_range=2024-03-01,2024-03-02&format=csv');
      expect(answer.status).toBe(200);
      expect(answer.headers['content-disposition']).toBe(`attachment; filename="sightline-site-${siteId}-2024-03-01-to-2024-03-02.csv.gz"`);
      const text = answer.file.toString('utf8');
      const records = text.split('\r\n');
      expect(records[0]).toBe(
        'timestamp,name,visitor_id,hostname,pathname,referrer,source,channel,utm_source,utm_medium,utm_campaign,utm_content,utm_term,click_id,country,region,city,browser,browser_version,os,os_version,device,screen,props,scroll_depth,engagement_ms,status_code',
      );
      // hand-written: quotes doubled, fields with a comma, quote or line break quoted
      const visit1Csv = 'news.ycombinator.com/item,Hacker News,Organic Social,,,"a,b ""c""\nd",,,,DE,DE-BE,2950159,Firefox,125.0,GNU/Linux,,Desktop,Laptop';
      expect(records[1]).toBe(
        `2024-03-01T10:01:00.000Z,"Say ""hi"", ok",${visitor1},example.org,/,${visit1Csv},"{""note"":""line1\\nline2"",""clé"":""☕""}",,0,`,
      );
      expect(records[2]).toBe(`2024-03-01T10:00:30.000Z,engagement,${visitor1},example.org,"/ünï,""x""",${visit1Csv},{},80,30000,`);
      expect(records[3]).toBe(`2024-03-01T10:00:00.123Z,pageview,${visitor1},example.org,"/ünï,""x""",${visit1Csv},{},,0,200`);
      expect(records[4]).toBe(`2024-03-02T23:59:59.999Z,pageview,${visitor2},example.org,/missing,,,,,,,,,,,,0,,,,,,,{},,0,404`);
      expect(records.slice(5)).toEqual(['']);
      // and ClickHouse's CSV reader gives back the very rows of the NDJSON
      expect(await readBack('csv', answer.file)).toEqual(expectedLines);
    });

    it('parquet: the same rows, typed, not gzipped', async () => {
      const answer = await exportOf(token, siteId, 'date_range=2024-03-01,2024-03-02&format=parquet');
      expect(answer.status).toBe(200);
      expect(answer.headers['content-type']).toBe('application/vnd.apache.parquet');
      expect(answer.headers['content-disposition']).toBe(`attachment; filename="sightline-site-${siteId}-2024-03-01-to-2024-03-02.parquet"`);
      expect(answer.trailers['x-export-rows']).toBe('4');
      expect(answer.body.subarray(0, 4).toString()).toBe('PAR1');
      expect(await readBack('parquet', answer.file)).toEqual(expectedLines);
    });

    it('an empty window: an empty file (CSV: the header; Parquet: no rows), counted 0', async () => {
      for (const format of ['ndjson', 'csv', 'parquet'] as const) {
        const answer = await exportOf(token, siteId, `date_range=2023-01-01,2023-01-31&format=${format}`);
        expect(answer.status, format).toBe(200);
        expect([answer.headers['x-export-rows-counted'], answer.trailers['x-export-rows']], format).toEqual(['0', '0']);
        if (format === 'ndjson') expect(answer.file.length).toBe(0);
        if (format === 'csv') expect(answer.file.toString('utf8').split('\r\n')).toHaveLength(2);
        if (format === 'parquet') expect(await readBack('parquet', answer.file)).toEqual([]);
      }
    });

    it('the window is the site’s days: a day range ends at the site’s midnight', async () => {
      const answer = await exportOf(token, siteId, 'date_range=2024-03-02,2024-03-02&format=ndjson');
      expect(answer.trailers['x-export-rows']).toBe('1');
      expect(JSON.parse(answer.file.toString('utf8'))).toEqual(expectedLines[3]);
    });

    it('bad parameters: 400 with the spec’s codes', async () => {
      const cases: Array<[string, string]> = [
        ['date_range=2024-03-01,2024-03-02&format=xml', 'invalid_request'],
        ['date_range=2024-03-01,2024-03-02', 'invalid_request'],
        ['format=ndjson', 'invalid_request'],
        ['date_range=2024-03-05,2024-03-01&format=csv', 'invalid_date_range'],
        ['date_range=2020-01-01,2024-01-01&format=csv', 'invalid_date_range'],
        ['date_range=yesterday-ish&format=ndjson', 'invalid_date_range'],
      ];
      for (const [query, code] of cases) {
        const answer = await exportOf(token, siteId, query);
        expect([answer.status, answer.error?.code], query).toEqual([400, code]);
      }
    });
  });

  it('reach: a site the key cannot reach is the same 404 as a missing one; no key is 401', async () => {
    const a = await owner();
    const b = await owner();
    const siteOfA = await a.site();
    expect((await exportOf(b.who.token, siteOfA, 'date_range=7d&format=ndjson')).error?.code).toBe('unknown_site');
    expect((await exportOf(b.who.token, 999_999_999, 'date_range=7d&format=ndjson')).error?.code).toBe('unknown_site');
    expect((await exportOf(b.who.token, 'abc', 'date_range=7d&format=ndjson')).error?.code).toBe('unknown_site');
    const anonymous = await download(sightline.url!, `/api/v1/sites/${siteOfA}/export?date_range=7d&format=ndjson`, {});
    expect([anonymous.status, anonymous.error?.code]).toEqual([401, 'unauthorized']);
    expect((await exportOf(a.who.token, siteOfA, 'date_range=7d&format=ndjson')).status).toBe(200);
  });

  it(`rate limit: ${RATE_PER_HOUR} exports per key at once, then 429 rate_limited with Retry-After`, async () => {
    const o = await owner();
    const siteId = await o.site();
    for (let i = 0; i < RATE_PER_HOUR; i += 1) expect((await exportOf(o.who.token, siteId, 'date_range=7d&format=csv')).status).toBe(200);
    const refused = await exportOf(o.who.token, siteId, 'date_range=7d&format=csv');
    expect([refused.status, refused.error?.code]).toEqual([429, 'rate_limited']);
    // one token back every 60/N minutes
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(3600 / RATE_PER_HOUR);
    // per key: another account's key is not affected
    const other = await owner();
    expect((await exportOf(other.who.token, await other.site(), 'date_range=7d&format=csv')).status).toBe(200);
  });
});
