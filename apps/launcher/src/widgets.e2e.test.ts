import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@sightline/config';
import { seedVisits, type SeedVisit } from '@sightline/events-schema/testing';
import { startSmtpSink, type SmtpSink } from '@sightline/mailer/testing';
import { createLogger, grpcServerHandled } from '@sightline/telemetry';
import { backendGate, createTestDatabase, makeTempDir, type TestDatabase } from '@sightline/testkit';
import { startSightline, type RunningSightline } from './start-sightline.js';
import { ApiClient, freshIp, register, type Registered } from './test-support/api-client.js';

// The embeddable widgets' server half over HTTP: the snippet and its key (reach, rotation,
// deletion), the public data endpoint's shapes against hand-computed numbers from events
// seeded into chDB, its headers, its cache and its rate limits. Real PostgreSQL + chDB.
const pgGate = await backendGate('postgres');

const KEY = /^wk_[A-Za-z0-9_-]{43}$/;
const CLIENT_LIMIT = 20;
const KEY_LIMIT = 6;
const MINUTE = 60_000;
const BERLIN = 2950159;
const PARIS = 2988507;
const TOKYO = 1850147;

/** Query/Query calls the query service answered */
async function queryCalls(): Promise<number> {
  const { values } = await grpcServerHandled.get();
  return values.filter((v) => String(v.labels.method).endsWith('/Query')).reduce((sum, v) => sum + v.value, 0);
}

const iso = (ms: number) => new Date(ms).toISOString();
const minute = (ms: number) => `${iso(Math.floor(ms / MINUTE) * MINUTE).slice(0, 16)}:00Z`;
/** today at 00:30 UTC, or now less a minute if that is later (a 30d window holds both) */
const earlyToday = (now: number) => iso(Math.min(now - MINUTE, Math.floor(now / 86_400_000) * 86_400_000 + 30 * MINUTE));

/** Waits until at least `seconds` remain in the current minute, so a test's seeds and request share its minute. */
async function roomInMinute(seconds: number): Promise<void> {
  const left = MINUTE - (Date.now() % MINUTE);
  if (left < seconds * 1000) await new Promise((resolve) => setTimeout(resolve, left + 50));
}

describe.skipIf(!pgGate.available)('widgets: snippet, key, data endpoint', () => {
  let database: TestDatabase;
  let dataDir: Awaited<ReturnType<typeof makeTempDir>>;
  let smtp: SmtpSink;
  let sightline: RunningSightline;
  let client: ApiClient;
  let owner: Registered;
  let member: Registered;
  let stranger: Registered;
  let publicBase: string;
  const stamp = Date.now().toString(36);
  // visitor ids no answer may show (searched for in the answers' text)
  const VISITOR_BASE = 987_654_321_000;
  let visitorSeq = 0;
  let sessionSeq = 1;

  async function createSite(name: string, token = owner.token): Promise<number> {
    const site = await client.request<{ site_id: number; script_url: string }>('POST', '/api/v1/sites', {
      token,
      body: { url: `https://${name}-${stamp}.sightline-e2e.net`, timezone: 'UTC' },
    });
    expect(site.status).toBe(201);
    publicBase = site.body.script_url.replace(/\/js\/[^/]+$/, '');
    return site.body.site_id;
  }
  const snippet = (siteId: number, type: string, token = owner.token) =>
    client.request<{ site_id: number; type: string; script_url: string; key: string; snippet: string; code?: string }>(
      'GET',
      `/api/v1/sites/${siteId}/snippet?type=${type}`,
      { token },
    );
  async function keyOf(siteId: number): Promise<string> {
    const answer = await snippet(siteId, 'countries');
    expect(answer.status).toBe(200);
    return answer.body.key;
  }
  const widget = (type: string, query: string, ip = freshIp()) =>
    client.withIp(ip).request<Record<string, unknown> & { code?: string }>('GET', `/api/v1/widgets/${type}?${query}`);
  const seed = (siteId: number, visits: Array<Omit<SeedVisit, 'visitor'> & { visitor?: number }>) =>
    seedVisits(
      sightline.events!,
      visits.map((v) => ({ ...v, visitor: v.visitor ?? VISITOR_BASE + (visitorSeq += 1) })),
      { siteId, firstSessionId: (sessionSeq += 1_000) },
    );

  beforeAll(async () => {
    database = await createTestDatabase(pgGate.url, 'sightline_widgets_e2e');
    dataDir = await makeTempDir();
    smtp = await startSmtpSink();
    const config = loadConfig({
      SIGHTLINE_DATA_DIR: dataDir.path,
      DATABASE_URL: database.url,
      SMTP_URL: `smtp://127.0.0.1:${smtp.port}?ignoreTLS=true`,
      PORT: '0',
      HOST: '127.0.0.1',
      TRUSTED_PROXIES: '127.0.0.1,::1',
      GRPC_DEADLINE_MS: '30000',
      WIDGET_CACHE_TTL_MS: '15000',
      WIDGET_RATE_LIMIT_PER_MINUTE: String(CLIENT_LIMIT),
      WIDGET_KEY_RATE_LIMIT_PER_MINUTE: String(KEY_LIMIT),
    });
    sightline = await startSightline({ config, log: createLogger({ level: (process.env.WIDGETS_LOG as 'silent') ?? 'silent' }), target: 'all' });
    client = new ApiClient(sightline.url!).withIp(freshIp());
    owner = await register(client, smtp, `widgets.${stamp}@mail.sightline-e2e.net`);
    member = await register(client, smtp, `widgets-member.${stamp}@mail.sightline-e2e.net`);
    stranger = await register(client, smtp, `widgets-stranger.${stamp}@mail.sightline-e2e.net`);
  }, 120_000);

  afterAll(async () => {
    await sightline?.stop();
    await smtp?.close();
    await dataDir?.remove();
    await database?.drop();
  });

  describe('snippet and key', () => {
    it('answers a script snippet per type with one key, stable across calls; the tracker snippet is unchanged', async () => {
      const siteId = await createSite('snippet');
      const answers = await Promise.all(['globe', 'live-users', 'map', 'countries'].map((type) => snippet(siteId, type)));
      const key = answers[0]!.body.key;
      expect(key).toMatch(KEY);
      for (const [i, type] of ['globe', 'live-users', 'map', 'countries'].entries()) {
        const scriptUrl = `${publicBase}/widgets/v1/${type}.js`;
        expect(answers[i]!.status).toBe(200);
        expect(answers[i]!.body).toEqual({
          site_id: siteId,
          type,
          script_url: scriptUrl,
          key,
          snippet: `<div id="sightline-${type}-${siteId}"></div>\n<script async src="${scriptUrl}" data-key="${key}" data-target="sightline-${type}-${siteId}"></script>`,
        });
      }
      expect((await snippet(siteId, 'map')).body.key).toBe(key);
      const tracker = await client.request<Record<string, unknown>>('GET', `/api/v1/sites/${siteId}/snippet`, { token: owner.token });
      expect(Object.keys(tracker.body).sort()).toEqual(['script_url', 'site_id', 'snippet']);
      expect(tracker.body.script_url).toMatch(/\/js\/[A-Za-z0-9]+\.js$/);
    });

    it('refuses an unknown type with 400 invalid_request, before the site is looked up', async () => {
      const siteId = await createSite('types');
      for (const type of ['nope', 'Globe', 'live_users', '']) {
        const answer = await client.request<{ code: string }>('GET', `/api/v1/sites/${siteId}/snippet?type=${encodeURIComponent(type)}`, {
          token: owner.token,
        });
        expect([type, answer.status, answer.body.code]).toEqual([type, 400, 'invalid_request']);
      }
      const unknownSite = await client.request<{ code: string }>('GET', '/api/v1/sites/999999999/snippet?type=nope', { token: owner.token });
      expect([unknownSite.status, unknownSite.body.code]).toEqual([400, 'invalid_request']);
      const noKey = await client.request<{ code: string }>('GET', `/api/v1/sites/${siteId}/snippet?type=globe`);
      expect([noKey.status, noKey.body.code]).toEqual([401, 'unauthorized']);
    });

    it('reach: a member gets the same key; a stranger gets 404 unknown_site, like a missing site', async () => {
      const siteId = await createSite('reach');
      const memberEmail = `widgets-member.${stamp}@mail.sightline-e2e.net`;
      expect(
        (await client.request('POST', `/api/v1/sites/${siteId}/members`, { token: owner.token, body: { email: memberEmail, role: 'member' } })).status,
      ).toBe(201);
      const ownerKey = await keyOf(siteId);
      const asMember = await snippet(siteId, 'globe', member.token);
      expect([asMember.status, asMember.body.key]).toEqual([200, ownerKey]);
      const asStranger = await snippet(siteId, 'globe', stranger.token);
      const missing = await snippet(999_999_999, 'globe', stranger.token);
      expect([asStranger.status, asStranger.body.code]).toEqual([404, 'unknown_site']);
      const { request_id: _a, ...strangerBody } = asStranger.body as unknown as Record<string, unknown>;
      const { request_id: _b, ...missingBody } = missing.body as unknown as Record<string, unknown>;
      expect(strangerBody).toEqual(missingBody);
      // a member may not rotate; a stranger does not learn the site exists
      const memberRotate = await client.request<{ code: string }>('POST', `/api/v1/sites/${siteId}/widget-key/rotate`, { token: member.token });
      expect([memberRotate.status, memberRotate.body.code]).toEqual([403, 'not_site_owner']);
      const strangerRotate = await client.request<{ code: string }>('POST', `/api/v1/sites/${siteId}/widget-key/rotate`, { token: stranger.token });
      expect([strangerRotate.status, strangerRotate.body.code]).toEqual([404, 'unknown_site']);
      expect(await keyOf(siteId)).toBe(ownerKey);
    });

    it('rotation: the old key is refused at once, the new one works, the snippet carries it, the trail records it without the key', async () => {
      const siteId = await createSite('rotate');
      const oldKey = await keyOf(siteId);
      expect((await widget('countries', `key=${oldKey}`)).status).toBe(200);
      const rotated = await client.request<{ site_id: number; key: string }>('POST', `/api/v1/sites/${siteId}/widget-key/rotate`, { token: owner.token });
      expect(rotated.status).toBe(200);
      expect(rotated.body.site_id).toBe(siteId);
      expect(rotated.body.key).toMatch(KEY);
      expect(rotated.body.key).not.toBe(oldKey);
      const refused = await widget('countries', `key=${oldKey}`);
      expect([refused.status, refused.body.code]).toEqual([404, 'unknown_site']);
      expect(refused.headers.get('access-control-allow-origin')).toBe('*');
      expect((await widget('countries', `key=${rotated.body.key}`)).status).toBe(200);
      expect(await keyOf(siteId)).toBe(rotated.body.key);
      const audit = await client.request<{ entries: Array<{ action: string; details: unknown }> }>('GET', `/api/v1/sites/${siteId}/audit`, {
        token: owner.token,
      });
      const entries = audit.body.entries.filter((e) => e.action === 'site.widget_key.rotate');
      expect(entries).toHaveLength(1);
      expect(JSON.stringify(audit.body)).not.toContain(rotated.body.key);
      expect(JSON.stringify(audit.body)).not.toContain(oldKey);
    });

    it('site deletion kills the key', async () => {
      const siteId = await createSite('deleted');
      const key = await keyOf(siteId);
      expect((await widget('live-users', `key=${key}`)).status).toBe(200);
      expect((await client.request('DELETE', `/api/v1/sites/${siteId}`, { token: owner.token })).status).toBe(204);
      const gone = await widget('live-users', `key=${key}`);
      expect([gone.status, gone.body.code]).toEqual([404, 'unknown_site']);
    });

    it('a widget key is no API key: 401 like any unknown token', async () => {
      const siteId = await createSite('not-api');
      const key = await keyOf(siteId);
      for (const path of ['/api/v1/sites', `/api/v1/sites/${siteId}`, `/api/v1/sites/${siteId}/snippet?type=globe`]) {
        const answer = await client.request<{ code: string }>('GET', path, { token: key });
        expect([path, answer.status, answer.body.code]).toEqual([path, 401, 'unauthorized']);
      }
      const query = await client.request<{ code: string }>('POST', '/api/v1/query', {
        token: key,
        body: { site_id: siteId, metrics: ['visitors'], date_range: '7d' },
      });
      expect([query.status, query.body.code]).toEqual([401, 'unauthorized']);
    });
  });

  describe('data endpoint', () => {
    it('refuses a bad type, window or key with the API’s codes', async () => {
      const siteId = await createSite('errors');
      const key = await keyOf(siteId);
      const cases: Array<[string, string, number, string]> = [
        ['weather', `key=${key}`, 400, 'invalid_request'],
        ['countries', `key=${key}&window=365d`, 400, 'invalid_date_range'],
        ['countries', `key=${key}&window=0d`, 400, 'invalid_date_range'],
        ['countries', `key=${key}&window=12mo`, 400, 'invalid_date_range'],
        ['map', `key=${key}&window=realtime`, 400, 'invalid_date_range'],
        ['live-users', `key=${key}&window=30d`, 400, 'invalid_date_range'],
        ['globe', `key=${key}&window=5m`, 400, 'invalid_date_range'],
        ['countries', '', 404, 'unknown_site'],
        ['countries', 'key=wk_short', 404, 'unknown_site'],
        ['countries', `key=wk_${'A'.repeat(43)}`, 404, 'unknown_site'],
        ['countries', `key=${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`, 404, 'unknown_site'],
      ];
      for (const [type, query, status, code] of cases) {
        const answer = await widget(type, query);
        expect([type, query, answer.status, answer.body.code]).toEqual([type, query, status, code]);
      }
      for (const [type, window] of [
        ['countries', '90d'],
        ['map', 'month'],
        ['countries', '1d'],
        ['live-users', '5m'],
        ['globe', '30m'],
      ]) {
        expect((await widget(type!, `key=${key}&window=${window}`)).status).toBe(200);
      }
    });

    it('countries and map: visitors, shares to one decimal, ties by code, unknown country in the total only', async () => {
      const siteId = await createSite('countries');
      const key = await keyOf(siteId);
      const now = Date.now();
      const today = earlyToday(now);
      const tenDaysAgo = iso(now - 10 * 86_400_000);
      const fortyDaysAgo = iso(now - 40 * 86_400_000);
      await seed(siteId, [
        // 30d: DE 2, FR 2, JP 1, US 1, unknown 1 → 7 visitors
        { attrs: { country: 'FR' }, events: [{ at: today, path: '/private-path-fr' }] },
        { attrs: { country: 'DE', city: BERLIN }, events: [{ at: today }, { at: iso(Date.parse(today) + 1000), path: '/second' }] },
        { attrs: { country: 'US', referrer: 'https://secret-referrer.example/' }, events: [{ at: tenDaysAgo }] },
        { attrs: { country: 'DE' }, events: [{ at: tenDaysAgo }] },
        { attrs: { country: 'FR' }, events: [{ at: tenDaysAgo }] },
        { attrs: { country: 'JP' }, events: [{ at: today }] },
        { attrs: { country: '' }, events: [{ at: today }] },
        // only in 90d
        { attrs: { country: 'GB' }, events: [{ at: fortyDaysAgo }] },
      ]);
      const thirty = await widget('countries', `key=${key}`);
      expect(thirty.status).toBe(200);
      expect(thirty.body).toEqual({
        type: 'countries',
        window: '30d',
        visitors: 7,
        countries: [
          { code: 'DE', name: 'Germany', visitors: 2, share: 28.6 },
          { code: 'FR', name: 'France', visitors: 2, share: 28.6 },
          { code: 'JP', name: 'Japan', visitors: 1, share: 14.3 },
          { code: 'US', name: 'United States', visitors: 1, share: 14.3 },
        ],
        generated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:00Z$/),
      });
      const map = await widget('map', `key=${key}&window=90d`);
      expect(map.body).toEqual({
        type: 'map',
        window: '90d',
        visitors: 8,
        countries: [
          { code: 'DE', name: 'Germany', visitors: 2, share: 25 },
          { code: 'FR', name: 'France', visitors: 2, share: 25 },
          { code: 'GB', name: 'United Kingdom', visitors: 1, share: 12.5 },
          { code: 'JP', name: 'Japan', visitors: 1, share: 12.5 },
          { code: 'US', name: 'United States', visitors: 1, share: 12.5 },
        ],
        generated_at: expect.any(String),
      });
      // the last 7 days: the two visitors of today with a known country, and the unknown one
      const week = await widget('countries', `key=${key}&window=7d`);
      expect(week.body).toMatchObject({
        visitors: 4,
        countries: [
          { code: 'DE', visitors: 1, share: 25 },
          { code: 'FR', visitors: 1, share: 25 },
          { code: 'JP', visitors: 1, share: 25 },
        ],
      });
      for (const answer of [thirty, map, week]) {
        const text = JSON.stringify(answer.body);
        for (const secret of ['private-path', '/second', 'secret-referrer', String(VISITOR_BASE).slice(0, 6)]) expect(text).not.toContain(secret);
      }
    });

    it('countries lists the top 50 only; map lists every country', async () => {
      const siteId = await createSite('many');
      const key = await keyOf(siteId);
      const codes = Array.from({ length: 55 }, (_, i) => `${String.fromCharCode(65 + Math.floor(i / 26))}${String.fromCharCode(65 + (i % 26))}`);
      const at = earlyToday(Date.now());
      await seed(
        siteId,
        codes.map((code) => ({ attrs: { country: code }, events: [{ at }] })),
      );
      const top = await widget('countries', `key=${key}`);
      const all = await widget('map', `key=${key}`);
      expect((top.body.countries as Array<{ code: string }>).map((c) => c.code)).toEqual(codes.slice(0, 50));
      expect((all.body.countries as Array<{ code: string }>).map((c) => c.code)).toEqual(codes);
      expect(top.body.visitors).toBe(55);
      // 1/55 = 1.818… %
      expect((top.body.countries as Array<{ share: number }>)[0]!.share).toBe(1.8);
    });

    it('live-users: unique visitors since the start of the minute five minutes ago, a 30-minute zero-filled sparkline', async () => {
      const siteId = await createSite('live');
      const key = await keyOf(siteId);
      await roomInMinute(25);
      // and at least two seconds into it, so an event of this minute lies before now
      if (Date.now() % MINUTE < 2_000) await new Promise((resolve) => setTimeout(resolve, 2_000));
      const now = Date.now();
      const thisMinute = Math.floor(now / MINUTE) * MINUTE;
      const edge = thisMinute - 5 * MINUTE;
      await seed(siteId, [
        // counted: just inside the edge
        { events: [{ at: iso(edge + 1_000) }] },
        // not counted: just before it, yet in the sparkline
        { events: [{ at: iso(edge - 1_000) }] },
        // counted once although active in two minutes
        { events: [{ at: iso(thisMinute - 2 * MINUTE + 5_000) }, { at: iso(thisMinute + 1_000) }] },
        // older than the sparkline's 30 minutes
        { events: [{ at: iso(thisMinute - 31 * MINUTE + 5_000) }] },
      ]);
      const answer = await widget('live-users', `key=${key}`);
      expect(answer.status).toBe(200);
      expect(answer.body.generated_at).toBe(minute(thisMinute));
      const expected = new Map([
        [minute(edge + 1_000), 1],
        [minute(edge - 1_000), 1],
        [minute(thisMinute - 2 * MINUTE), 1],
        [minute(thisMinute), 1],
      ]);
      expect(answer.body).toEqual({
        type: 'live-users',
        visitors: 2,
        window: '5m',
        sparkline: Array.from({ length: 30 }, (_, i) => {
          const t = minute(thisMinute - (29 - i) * MINUTE);
          return { t, visitors: expected.get(t) ?? 0 };
        }),
        generated_at: minute(thisMinute),
      });
    });

    it('globe: one marker per city at its GeoNames point, none without a city, top countries of the last 30 minutes', async () => {
      const siteId = await createSite('globe');
      const key = await keyOf(siteId);
      const now = Date.now();
      await seed(siteId, [
        { attrs: { country: 'DE', city: BERLIN }, events: [{ at: iso(now - 2 * MINUTE), path: '/globe-secret' }] },
        { attrs: { country: 'DE', city: BERLIN }, events: [{ at: iso(now - 10 * MINUTE) }] },
        { attrs: { country: 'FR', city: PARIS }, events: [{ at: iso(now - MINUTE) }] },
        { attrs: { country: 'DE' }, events: [{ at: iso(now - 3 * MINUTE) }] },
        { attrs: {}, events: [{ at: iso(now - 4 * MINUTE) }] },
        // outside the 30 minutes
        { attrs: { country: 'JP', city: TOKYO }, events: [{ at: iso(now - 45 * MINUTE) }] },
      ]);
      const answer = await widget('globe', `key=${key}`);
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({
        type: 'globe',
        window: '30m',
        visitors: 5,
        locations: [
          { lat: 52.52, lon: 13.41, visitors: 2 },
          { lat: 48.85, lon: 2.35, visitors: 1 },
        ],
        countries: [
          { code: 'DE', name: 'Germany', visitors: 3, share: 60 },
          { code: 'FR', name: 'France', visitors: 1, share: 20 },
        ],
        generated_at: expect.stringMatching(/:00Z$/),
      });
      expect(JSON.stringify(answer.body)).not.toContain('globe-secret');
    });

    it('an empty site answers zeros, not an error', async () => {
      const siteId = await createSite('empty');
      const key = await keyOf(siteId);
      expect((await widget('countries', `key=${key}`)).body).toMatchObject({ visitors: 0, countries: [] });
      expect((await widget('globe', `key=${key}`)).body).toMatchObject({ visitors: 0, locations: [], countries: [] });
      const live = await widget('live-users', `key=${key}`);
      expect(live.body.visitors).toBe(0);
      expect((live.body.sparkline as Array<{ visitors: number }>).map((p) => p.visitors)).toEqual(Array(30).fill(0));
    });

    it('CORS open without credentials, public caching for 15 s, no-store on refusals', async () => {
      const siteId = await createSite('cors');
      const key = await keyOf(siteId);
      const response = await fetch(`${sightline.url}/api/v1/widgets/countries?key=${key}`, {
        headers: { origin: 'https://blog.example', 'x-forwarded-for': freshIp() },
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(response.headers.get('access-control-allow-credentials')).toBeNull();
      expect(response.headers.get('cache-control')).toBe('public, max-age=15');
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(response.headers.get('set-cookie')).toBeNull();
      const refused = await fetch(`${sightline.url}/api/v1/widgets/countries?key=wk_${'x'.repeat(43)}`, {
        headers: { origin: 'https://blog.example', 'x-forwarded-for': freshIp() },
      });
      expect(refused.status).toBe(404);
      expect(refused.headers.get('access-control-allow-origin')).toBe('*');
      expect(refused.headers.get('cache-control')).toBe('no-store');
      expect(refused.headers.get('x-request-id')).toBeTruthy();
    });

    it('cache: many viewers of one widget cost one answer (two Query calls) per TTL', async () => {
      const siteId = await createSite('cache');
      const key = await keyOf(siteId);
      await seed(siteId, [{ attrs: { country: 'DE' }, events: [{ at: earlyToday(Date.now()) }] }]);
      const before = await queryCalls();
      const answers = await Promise.all(Array.from({ length: 40 }, () => widget('countries', `key=${key}`)));
      expect(answers.every((a) => a.status === 200 && a.body.visitors === 1)).toBe(true);
      for (let i = 0; i < 10; i += 1) expect((await widget('countries', `key=${key}`)).status).toBe(200);
      // countries = the window's total and its country breakdown: two Query calls for 50 requests
      expect((await queryCalls()) - before).toBe(2);
      // map with the same window asks the same two queries: the answer cache has them
      const mid = await queryCalls();
      expect((await widget('map', `key=${key}`)).status).toBe(200);
      expect((await queryCalls()) - mid).toBe(0);
    });

    it('rate limits: per client address (every request) and per key (answers computed): 429 rate_limited with Retry-After', async () => {
      const siteId = await createSite('limits');
      const key = await keyOf(siteId);
      const ip = freshIp();
      const statuses: number[] = [];
      for (let i = 0; i < CLIENT_LIMIT + 1; i += 1) statuses.push((await widget('countries', `key=${key}`, ip)).status);
      expect(statuses.slice(0, CLIENT_LIMIT).every((s) => s === 200)).toBe(true);
      const limited = await widget('countries', `key=${key}`, ip);
      expect([limited.status, limited.body.code]).toEqual([429, 'rate_limited']);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(limited.headers.get('access-control-allow-origin')).toBe('*');
      // another address is not limited by that one
      expect((await widget('countries', `key=${key}`)).status).toBe(200);

      // per key: KEY_LIMIT answers computed a minute (the countries answer above was one); cached answers still flow
      const other = await createSite('key-limit');
      const otherKey = await keyOf(other);
      const windows = ['1d', '2d', '3d', '4d', '5d', '6d', '7d'];
      const computed = [];
      for (const window of windows) computed.push(await widget('countries', `key=${otherKey}&window=${window}`));
      expect(computed.slice(0, KEY_LIMIT).map((a) => a.status)).toEqual(Array(KEY_LIMIT).fill(200));
      expect([computed[KEY_LIMIT]!.status, computed[KEY_LIMIT]!.body.code]).toEqual([429, 'rate_limited']);
      expect(Number(computed[KEY_LIMIT]!.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await widget('countries', `key=${otherKey}&window=1d`)).status).toBe(200);
    });
  });
});
