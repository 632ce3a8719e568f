import { existsSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUBJECTS, STREAM_NAMES, type SubjectPayloads } from '@sightline/bus';
import { loadConfig } from '@sightline/config';
import { startSmtpSink, type SmtpSink } from '@sightline/mailer/testing';
import { createLogger } from '@sightline/telemetry';
import { backendsRequired, makeTempDir, uniqueName } from '@sightline/testkit';
import { startSightline, type RunningSightline } from './start-sightline.js';
import { ApiClient, freshIp, register } from './test-support/api-client.js';

type Collected = SubjectPayloads[typeof SUBJECTS.eventsCollected];

// The served snippet in a real browser (Debian's Chromium, driven by playwright-core):
// what it sends lands on the EVENTS stream; turning a feature off changes the script.
const CHROMIUM = '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) {
  if (backendsRequired())
    throw new Error(`${CHROMIUM} is missing and SIGHTLINE_REQUIRE_BACKENDS=1 makes the browser test mandatory (apt-get install chromium)`);
  console.warn(`[skip] browser test: ${CHROMIUM} not installed (apt-get install chromium)`);
}

function pageHtml(scriptUrl: string, outboundUrl: string): string {
  return `<!doctype html><html><head><title>Shop</title>
<script defer src="${scriptUrl}" data-sightline-allow-localhost></script></head>
<body style="margin:0">
<button id="spa" onclick="history.pushState({}, '', '/pricing')">Pricing</button>
<button id="signup" data-sightline-event="Signup" data-sightline-event-plan="pro">Sign up</button>
<a id="out" href="${outboundUrl}">Partner</a>
<div style="height:4000px">tall content</div>
</body></html>`;
}

describe.skipIf(!hasChromium)('the tracker in Chromium', () => {
  let dataDir: Awaited<ReturnType<typeof makeTempDir>>;
  let smtp: SmtpSink;
  let sightline: RunningSightline;
  let pages: http.Server;
  let pagesUrl: string;
  let browser: Browser;
  let scriptUrl: string;
  let token: string;
  let settingsPath: string;
  let client: ApiClient;
  const received: Collected[] = [];

  beforeAll(async () => {
    dataDir = await makeTempDir();
    smtp = await startSmtpSink();
    const config = loadConfig({
      SIGHTLINE_DATA_DIR: dataDir.path,
      SMTP_URL: `smtp://127.0.0.1:${smtp.port}?ignoreTLS=true`,
      PORT: '0',
      HOST: '127.0.0.1',
      TRUSTED_PROXIES: '127.0.0.1,::1',
    });
    sightline = await startSightline({ config, log: createLogger({ level: 'silent' }), target: 'all' });
    // a live subscriber sees each stored event without taking it from ingest's work queue
    await sightline.bus!.subscribe(SUBJECTS.eventsCollected, (data) => void received.push(data));
    client = new ApiClient(sightline.url!).withIp(freshIp());
    token = (await register(client, smtp, `browser.${Date.now()}@mail.sightline-e2e.net`)).token;
    const site = await client.request<{ site_id: number; script_url: string }>('POST', '/api/v1/sites', {
      token,
      body: { url: 'https://shop.sightline-e2e.net' },
    });
    scriptUrl = site.body.script_url;
    siteId = site.body.site_id;
    settingsPath = `/api/v1/sites/${site.body.site_id}/settings/tracking`;
    pages = http.createServer((request, response) => {
      // every path is the single-page app; /elsewhere stands for another site
      const outbound = `http://localhost:${(pages.address() as AddressInfo).port}/elsewhere`;
      response.writeHead(200, { 'content-type': 'text/html' }).end(request.url === '/elsewhere' ? 'elsewhere' : pageHtml(scriptUrl, outbound));
    });
    await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
    pagesUrl = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => pages?.close(resolve));
    await sightline?.stop();
    await smtp?.close();
    await dataDir?.remove();
  });

  const eventsFor = (path: string, name: string) => received.filter((m) => m.n === name && new URL(m.u).pathname === path);

  // Headless Chromium announces itself ("HeadlessChrome") and ingest rightly drops it
  // as automation; the visit that must be counted presents the desktop Chrome UA
  // and arrives from 8.8.8.8 through the trusted proxy (DB-IP: US / US-CA / Mountain View).
  const DESKTOP_CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36';
  let siteId = 0;

  it('sends the pageview, an SPA pageview, engagement with scroll depth, a tagged event and an outbound click', async () => {
    // a laptop's viewport: 1366 px wide (Playwright's default height)
    const page = await browser.newPage({ userAgent: DESKTOP_CHROME, viewport: { width: 1366, height: 720 } });
    // the visitor's address as a trusted proxy reports it (added below the page, so no CORS preflight)
    await page.route('**/api/event', (route) => route.continue({ headers: { ...route.request().headers(), 'x-forwarded-for': '8.8.8.8' } }));
    await page.goto(`${pagesUrl}/`, { referer: 'https://www.google.com/' });
    await expect.poll(() => eventsFor('/', 'pageview').length, { timeout: 10_000 }).toBe(1);
    const first = eventsFor('/', 'pageview')[0]!;
    expect(first).toMatchObject({ d: '127.0.0.1', ua: expect.stringContaining('Chrome') });
    expect(first.s).toEqual(expect.any(String));
    // every event carries the viewport width
    expect(first.w).toBe(1366);

    await page.evaluate('window.scrollTo(0, document.body.scrollHeight / 2)');
    await page.waitForTimeout(1_200);
    await page.click('#spa');
    await expect.poll(() => eventsFor('/pricing', 'pageview').length, { timeout: 10_000 }).toBe(1);
    await expect.poll(() => eventsFor('/', 'engagement').length, { timeout: 10_000 }).toBeGreaterThan(0);
    const engagement = eventsFor('/', 'engagement')[0]!;
    expect(engagement.e).toBeGreaterThan(500);
    expect(engagement.sd).toBeGreaterThan(20);

    await page.click('#signup');
    await expect.poll(() => received.find((m) => m.n === 'Signup'), { timeout: 10_000 }).toMatchObject({ p: { plan: 'pro' } });

    await page.click('#out');
    await expect
      .poll(() => received.find((m) => m.n === 'Outbound Link: Click'), { timeout: 10_000 })
      .toMatchObject({ p: { url: expect.stringContaining('/elsewhere') } });
    // one tab, one session marker
    expect(new Set(received.map((m) => m.s)).size).toBe(1);
    await page.close();
  });

  it('counts what the browser sent in ClickHouse: one visit with its browser, OS, device, screen, source, channel, geo and pages', async () => {
    const rows = () =>
      sightline.events!.query<{
        name: string;
        pathname: string;
        browser: string;
        os: string;
        device: string;
        screen: string;
        source: string;
        channel: string;
        country: string;
        region: string;
        city: number;
      }>(
        'SELECT name, pathname, browser, os, device, screen, source, channel, country, region, city FROM events WHERE site_id = {site:UInt64} ORDER BY timestamp',
        { site: siteId },
      );
    // both pageviews and the custom event, which may reach the store in a later batch
    const stored = async () =>
      (await rows())
        .filter((r) => r.name !== 'engagement')
        .map((r) => `${r.name} ${r.pathname}`)
        .sort();
    // (the outbound link click may be stored too, in its own batch)
    await expect.poll(stored, { timeout: 15_000 }).toEqual(expect.arrayContaining(['Signup /pricing', 'pageview /', 'pageview /pricing']));
    for (const row of await rows()) {
      expect(row).toMatchObject({
        browser: 'Chrome',
        os: 'GNU/Linux',
        device: 'Desktop',
        screen: 'Laptop',
        source: 'Google',
        channel: 'Organic Search',
        country: 'US',
        region: 'US-CA',
        city: 5375480,
      });
    }
    const [visit] = await sightline.events!.query<{ visits: number; pageviews: number; bounces: number; entry: string; exit: string }>(
      'SELECT sum(sign) AS visits, sum(pageviews * sign) AS pageviews, sum(is_bounce * sign) AS bounces, argMax(entry_page, version) AS entry, argMax(exit_page, version) AS exit FROM sessions WHERE site_id = {site:UInt64}',
      { site: siteId },
    );
    expect(visit).toEqual({ visits: 1, pageviews: 2, bounces: 0, entry: '/', exit: '/pricing' });
  });

  it('serves a different script once a feature is turned off, and the page stops sending it', async () => {
    const before = await (await fetch(new URL(new URL(scriptUrl).pathname, sightline.url))).text();
    const put = await client.request('PUT', settingsPath, { token, body: { features: ['engagement', 'scroll', 'outbound-links'] } });
    expect(put.status).toBe(200);
    const after = await (await fetch(new URL(new URL(scriptUrl).pathname, sightline.url))).text();
    expect(after).not.toBe(before);
    expect(before).toContain('sightline-event');
    expect(after).not.toContain('sightline-event');

    const signupsBefore = received.filter((m) => m.n === 'Signup').length;
    const page = await browser.newPage({ userAgent: DESKTOP_CHROME });
    await page.goto(`${pagesUrl}/again`);
    await expect.poll(() => eventsFor('/again', 'pageview').length, { timeout: 10_000 }).toBe(1);
    await page.click('#signup');
    await page.waitForTimeout(500);
    expect(received.filter((m) => m.n === 'Signup').length).toBe(signupsBefore);
    await page.close();
  });
});
