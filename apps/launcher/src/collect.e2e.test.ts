import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUBJECTS, STREAM_NAMES, collectedEventShard, type SubjectPayloads } from '@sightline/bus';
import { loadConfig } from '@sightline/config';
import { startSmtpSink } from '@sightline/mailer/testing';
import { createLogger } from '@sightline/telemetry';
import { makeTempDir, uniqueName } from '@sightline/testkit';
import { startSightline, type RunningSightline } from './start-sightline.js';
import { ApiClient, register } from './test-support/api-client.js';

type Collected = SubjectPayloads[typeof SUBJECTS.eventsCollected];

// The tracker's collection endpoint over HTTP: what it accepts, what it refuses,
// and that an accepted event is on the EVENTS stream before the 202.
describe('POST /api/event', () => {
  let dataDir: Awaited<ReturnType<typeof makeTempDir>>;
  let sightline: RunningSightline;
  const received: Collected[] = [];
  const subjects = new Map<Collected, string>();

  beforeAll(async () => {
    dataDir = await makeTempDir();
    // a site to collect for: created with writes on, then the server restarts with the API write switch off
    const smtp = await startSmtpSink();
    const base = { SIGHTLINE_DATA_DIR: dataDir.path, PORT: '0', HOST: '127.0.0.1', TRUSTED_PROXIES: '127.0.0.1,::1', EVENT_SHARDS: '4' };
    const setup = await startSightline({
      config: loadConfig({ ...base, SMTP_URL: `smtp://127.0.0.1:${smtp.port}?ignoreTLS=true` }),
      log: createLogger({ level: 'silent' }),
      target: 'all',
    });
    try {
      const api = new ApiClient(setup.url!);
      const owner = await register(api, smtp, `collect.${Date.now().toString(36)}@mail.sightline-e2e.net`);
      const site = await api.request<{ script_url: string }>('POST', '/api/v1/sites', { token: owner.token, body: { url: 'https://shop.sightline-e2e.net' } });
      expect(site.status).toBe(201);
      event.k = /\/js\/([A-Za-z0-9]+)\.js$/.exec(site.body.script_url)![1]!;
    } finally {
      await setup.stop();
      await smtp.close();
    }
    const config = loadConfig({ ...base, WRITES_ENABLED: 'false' });
    sightline = await startSightline({ config, log: createLogger({ level: 'silent' }), target: 'all' });
    // a live subscriber sees each stored event without taking it from ingest's work queue
    await sightline.bus!.subscribe(SUBJECTS.eventsCollected, (data, subject) => void (received.push(data), subjects.set(data, subject)));
  }, 120_000);

  afterAll(async () => {
    await sightline?.stop();
    await dataDir?.remove();
  });

  // k: the tracking key of the site created in beforeAll
  const event = {
    k: '',
    n: 'pageview',
    u: 'https://shop.sightline-e2e.net/pricing?utm_source=x',
    d: 'shop.sightline-e2e.net',
    r: 'https://news.example.net/',
    s: 'tab-1',
  };
  const send = (body: string, headers: Record<string, string> = { 'content-type': 'text/plain' }) =>
    fetch(`${sightline.url}/api/event`, { method: 'POST', body, headers });

  it('accepts the tracker’s text/plain JSON with 202 and no content, CORS open, and publishes it with server time, IP and User-Agent', async () => {
    const response = await send(JSON.stringify(event), {
      'content-type': 'text/plain',
      'x-forwarded-for': '198.51.100.7',
      'user-agent': 'Mozilla/5.0 e2e',
      origin: 'https://shop.sightline-e2e.net',
    });
    expect(response.status).toBe(202);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    // no content: the tracker reads only the status
    expect(response.headers.get('content-length')).toBe('0');
    expect(await response.text()).toBe('');
    expect(response.headers.get('x-request-id')).toMatch(/^req_/);
    await expect.poll(() => received.find((m) => m.s === 'tab-1'), { timeout: 5_000 }).toBeDefined();
    const message = received.find((m) => m.s === 'tab-1')!;
    expect(message).toMatchObject({ ...event, ip: '198.51.100.7', ua: 'Mozilla/5.0 e2e' });
    expect(Date.now() - Date.parse(message.ts)).toBeLessThan(10_000);
  });

  it('accepts application/json and an engagement with props, even with the API write switch off', async () => {
    const engagement = { ...event, n: 'engagement', e: 4200, sd: 75, s: 'tab-2' };
    expect((await send(JSON.stringify(engagement), { 'content-type': 'application/json' })).status).toBe(202);
    const custom = { ...event, n: 'Signup', p: { plan: 'pro', seats: 3, trial: true }, s: 'tab-3' };
    expect((await send(JSON.stringify(custom))).status).toBe(202);
    await expect.poll(() => received.filter((m) => m.s === 'tab-2' || m.s === 'tab-3').length, { timeout: 5_000 }).toBe(2);
  });

  it('accepts null for optional fields (other trackers send it) and publishes them as absent', async () => {
    const withNulls = { ...event, r: null, p: null, e: null, sd: null, sc: null, s: 'tab-null' };
    expect((await send(JSON.stringify(withNulls))).status).toBe(202);
    await expect.poll(() => received.find((m) => m.s === 'tab-null'), { timeout: 5_000 }).toBeDefined();
    const message = received.find((m) => m.s === 'tab-null')!;
    for (const key of ['r', 'p', 'e', 'sd', 'sc']) expect(Object.hasOwn(message, key), key).toBe(false);
  });

  it('publishes each event to its visitor’s shard of EVENT_SHARDS: same session marker, same subject', async () => {
    const sessions = ['tab-s1', 'tab-s2', 'tab-s3', 'tab-s4', 'tab-s5', 'tab-s6'];
    for (const s of sessions) {
      for (const n of ['pageview', 'engagement']) expect((await send(JSON.stringify({ ...event, n, s }))).status).toBe(202);
    }
    await expect.poll(() => received.filter((m) => sessions.includes(m.s ?? '')).length, { timeout: 5_000 }).toBe(12);
    const bySession = new Map<string, Set<string>>();
    for (const m of received.filter((r) => sessions.includes(r.s ?? ''))) {
      const subject = subjects.get(m)!;
      expect(subject).toBe(`events.collected.${collectedEventShard(m, 4)}`);
      bySession.set(m.s!, (bySession.get(m.s!) ?? new Set()).add(subject));
    }
    for (const [session, set] of bySession) expect(set.size, session).toBe(1);
    // the shard depends on the marker, not on the event: several shards are in use
    expect(new Set([...bySession.values()].map((set) => [...set][0])).size).toBeGreaterThan(1);
  });

  it('answers the preflight a browser may send', async () => {
    const response = await fetch(`${sightline.url}/api/event`, {
      method: 'OPTIONS',
      headers: { origin: 'https://x.net', 'access-control-request-method': 'POST' },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
  });

  it.each([
    ['not JSON', 'k=1'],
    ['a missing key', JSON.stringify({ ...event, k: undefined })],
    ['a malformed key', JSON.stringify({ ...event, k: 'bad key!' })],
    ['an unknown field', JSON.stringify({ ...event, x: 1 })],
    ['a scroll depth over 100', JSON.stringify({ ...event, n: 'engagement', sd: 101 })],
    ['too many props', JSON.stringify({ ...event, p: Object.fromEntries(Array.from({ length: 31 }, (_, i) => [`p${i}`, i])) })],
    ['a nested prop', JSON.stringify({ ...event, p: { a: { b: 1 } } })],
  ])('refuses %s with 400 invalid_request and publishes nothing', async (_label, body) => {
    const before = received.length;
    const response = await send(body);
    expect(response.status).toBe(400);
    expect(((await response.json()) as { code: string }).code).toBe('invalid_request');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(received.length).toBe(before);
  });

  it('refuses a tracking key no site has with 404 unknown_site, publishes nothing, and stays fast on repeats (cached)', async () => {
    const before = received.length;
    const unknown = JSON.stringify({ ...event, k: 'NoSuchSite0Key0000000000', s: 'tab-unknown' });
    for (let i = 0; i < 3; i += 1) {
      const response = await send(unknown);
      expect(response.status).toBe(404);
      expect(((await response.json()) as { code: string }).code).toBe('unknown_site');
    }
    // the known key still passes, after the unknown one
    expect((await send(JSON.stringify({ ...event, s: 'tab-after-unknown' }))).status).toBe(202);
    await expect.poll(() => received.find((m) => m.s === 'tab-after-unknown'), { timeout: 5_000 }).toBeDefined();
    expect(received.slice(before).some((m) => m.s === 'tab-unknown')).toBe(false);
  });

  it('answers 400 with the error object to every kind of malformed body (seeded fuzz), never 5xx, and keeps collecting', async () => {
    // a small seeded PRNG (mulberry32): the same bodies on every run
    let seed = 20_261_123;
    const random = () => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
    };
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    const oddValues: unknown[] = [null, true, 0, -1, 1e309, 3.5, '', 'x'.repeat(3000), '\u0000', '\ud800', [], [1], {}, { a: { b: 1 } }, 'https://a', -0];
    const fields = ['k', 'n', 'u', 'd', 'r', 'p', 'e', 'sd', 'sc', 's', 'x', '__proto__', 'constructor'];
    const raws = ['', '{', '}', '[]', 'null', '1', '"text"', '{"k":', '\u0000', '{"k":"a"}{"k":"b"}', '\xff\xfe{', JSON.stringify(event).slice(0, 20)];
    const bodies: string[] = [...raws];
    while (bodies.length < 300) {
      const mutated: Record<string, unknown> = { ...event };
      for (let i = 0, n = 1 + Math.floor(random() * 3); i < n; i += 1) {
        const field = pick(fields);
        if (random() < 0.2) delete mutated[field];
        else mutated[field] = pick(oddValues);
      }
      const text = JSON.stringify(mutated);
      // a mutation may leave a valid event: then 202 is the right answer
      if (text !== undefined && text.length < 8 * 1024) bodies.push(text);
    }
    const statuses = new Map<number, number>();
    const problems: string[] = [];
    for (const [i, body] of bodies.entries()) {
      const contentType = pick(['text/plain', 'application/json', 'text/plain; charset=utf-8']);
      const response = await send(body, { 'content-type': contentType });
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      const text = await response.text();
      if (response.status >= 500) problems.push(`#${i} ${response.status}: ${body.slice(0, 80)}`);
      if (response.status === 202) continue;
      const answer = JSON.parse(text) as { code?: string; error?: string; request_id?: string };
      if (![400, 404, 413].includes(response.status) || !answer.code || !answer.error || answer.request_id !== response.headers.get('x-request-id')) {
        problems.push(`#${i} ${response.status} ${text.slice(0, 120)} for ${body.slice(0, 80)}`);
      }
    }
    expect(problems).toEqual([]);
    // the fuzz reached the validation: most bodies are refused with 400
    expect(statuses.get(400) ?? 0).toBeGreaterThan(200);
    // the process is still collecting
    expect((await send(JSON.stringify({ ...event, s: 'tab-after-fuzz' }))).status).toBe(202);
    await expect.poll(() => received.find((m) => m.s === 'tab-after-fuzz'), { timeout: 5_000 }).toBeDefined();
  });

  it('refuses an oversized body with 413', async () => {
    const response = await send(JSON.stringify({ ...event, u: 'x'.repeat(9_000) }));
    expect(response.status).toBe(413);
    expect(((await response.json()) as { code: string }).code).toBe('payload_too_large');
  });
});
