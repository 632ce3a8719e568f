import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Frame } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { dashboardSuite } from './test-support/dashboard/browser-suite.js';
import { chromiumAvailable, openWatchedPage, saveScreenshot } from './test-support/dashboard/chromium.js';
import { apiQuery, postLiveEvent } from './test-support/dashboard/dashboard-server.js';
import { allPanelsLoaded, panel, PANELS, statText, WINDOW_QUERY, waitForPanels, type InPage } from './test-support/dashboard/panels.js';
import { TOTALS } from './test-support/dashboard/seed.js';

// The public dashboard's life: "visitors now" follows live events; the embed mode may be
// framed by any site and shows no chrome, the normal page may not be framed; turning the
// public dashboard off turns the page into the one 404 page, identical to an unknown hash.
const hasChromium = chromiumAvailable('dashboard share access, realtime and embed');

// a browser test waits on re-renders and the server; CI runs the suites side by side on 2 cores
describe.skipIf(!hasChromium)('the share page: realtime, embed mode, turned off', { timeout: 120_000 }, () => {
  // another origin that frames the dashboard, as a blog embedding it would
  let framing: http.Server;
  let framingUrl: string;
  const suite = dashboardSuite(
    { name: 'dash_share_access' },
    {
      setup: async () => {
        framing = http.createServer((request, response) => {
          const target = new URL(request.url!, 'http://x').searchParams.get('src') ?? '';
          response
            .writeHead(200, { 'content-type': 'text/html' })
            .end(`<!doctype html><title>blog</title><iframe id="dash" width="1000" height="800" src="${target.replace(/"/g, '&quot;')}"></iframe>`);
        });
        await new Promise<void>((resolve) => framing.listen(0, '127.0.0.1', resolve));
        framingUrl = `http://localhost:${(framing.address() as AddressInfo).port}/`;
      },
    },
  );
  afterAll(() => new Promise((resolve) => framing?.close(resolve)));

  const shareUrl = (query = '') => `${suite.dash.base}/share/${suite.dash.hash}${query ? `?${query}` : ''}`;

  it('"visitors now" goes from 0 to 1 after a live pageview, on the page’s own refresh', async () => {
    const watched = await openWatchedPage(suite.browser);
    const { page } = watched;
    // the page's timers run on a clock the test moves: the ≤ 30 s refresh without waiting 30 s
    await page.clock.install();
    await page.goto(shareUrl(WINDOW_QUERY));
    await waitForPanels(page);
    // label and number as text (innerText would follow a CSS text-transform)
    const now = panel(page, 'top-stats').getByText('Visitors now').locator('..');
    const nowText = () => now.evaluate((box: InPage) => ([...box.children] as InPage[]).map((part) => String(part.textContent).trim()).join(' '));
    await expect.poll(nowText).toBe('Visitors now 0');

    expect(await postLiveEvent(suite.dash, { path: '/live' })).toBe(202);
    // stored and counted by the API first (ingest is asynchronous)
    await expect
      .poll(async () => (await apiQuery(suite.dash, { metrics: ['visitors'], date_range: 'realtime' })).results[0]!.metrics.visitors, { timeout: 15_000 })
      .toBe(1);
    // then the page, on its next refreshes (the gateway may serve a realtime answer up to 10 s old)
    await expect
      .poll(
        async () => {
          await page.clock.fastForward(31_000);
          return nowText();
        },
        { timeout: 30_000, interval: 1_000 },
      )
      .toBe('Visitors now 1');
    // the custom range's totals are untouched by today's event
    await expect.poll(() => statText(page, 'Visitors')).toBe(`Visitors ${TOTALS.visitors}`);
    // the realtime period counts it, by the minute
    await page.getByRole('combobox', { name: /^Period/ }).selectOption('realtime');
    await waitForPanels(page);
    await expect.poll(() => statText(page, 'Visitors')).toBe('Visitors 1');
    expect(
      await panel(page, 'graph')
        .getByRole('combobox', { name: /^Interval/ })
        .locator('option')
        .allTextContents(),
    ).toEqual(['Minute']);
    watched.assertClean();
    await watched.close();
  });

  it('one panel’s failed call shows in that panel only; the rest of the page keeps its numbers', async () => {
    const watched = await openWatchedPage(suite.browser);
    const { page } = watched;
    // the country breakdown's call fails as an overloaded query service would answer it
    await page.route('**/api/v1/share/*/query', async (route) => {
      const body = route.request().postDataJSON() as { dimensions?: string[] };
      if (!body.dimensions?.includes('visit:country')) return route.continue();
      return route.fulfill({
        status: 503,
        contentType: 'application/json',
        body: JSON.stringify({ code: 'unavailable', error: 'The query service is busy; try again shortly.', request_id: 'req_test503' }),
      });
    });
    await page.goto(shareUrl(WINDOW_QUERY));
    await waitForPanels(page);
    const alert = panel(page, 'locations').getByRole('alert');
    await expect.poll(() => alert.innerText()).toContain('unavailable');
    expect(await alert.innerText()).toContain('req_test503');
    expect(await page.getByRole('alert').count()).toBe(1);
    await expect.poll(() => statText(page, 'Visitors')).toBe(`Visitors ${TOTALS.visitors}`);
    expect(await panel(page, 'pages').getByRole('button', { name: '/pricing', exact: true }).count()).toBe(1);
    watched.assertClean([/status of 503/]);
    await watched.close();
  });

  it('embed mode: may be framed by any site, shows the panels without header or sign-in chrome', async () => {
    const embedUrl = shareUrl(`embed=true&theme=dark&${WINDOW_QUERY}`);
    const response = await fetch(embedUrl);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-security-policy')).toContain('frame-ancestors *');
    expect(response.headers.get('x-frame-options')).toBeNull();
    const normal = await fetch(shareUrl());
    expect(normal.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(normal.headers.get('x-frame-options')).toBe('DENY');

    const watched = await openWatchedPage(suite.browser);
    const { page } = watched;
    await page.goto(`${framingUrl}?src=${encodeURIComponent(embedUrl)}`);
    const frame = await frameAt(() => page.frames(), embedUrl);
    await frame.waitForFunction(allPanelsLoaded, PANELS, { timeout: 20_000, polling: 50 });
    expect(await frame.getByRole('button', { name: /^Visitors\b/ }).innerText()).toContain(String(TOTALS.visitors));
    // no chrome: no header, no sign-in or sign-out, no skip link, no footer
    expect(await frame.getByRole('banner').count()).toBe(0);
    expect(await frame.getByRole('link', { name: 'Sightline' }).count()).toBe(0);
    expect(await frame.getByRole('link', { name: 'Terms' }).count()).toBe(0);
    expect(await frame.getByRole('button', { name: /sign (in|out)/i }).count()).toBe(0);
    expect(await frame.evaluate(() => String((globalThis as InPage).document.documentElement.dataset.theme))).toBe('dark');
    await saveScreenshot(page, 'share-embed-dark-framed');
    watched.assertClean();
    await watched.close();
  });

  it('the normal share page refuses to be framed', async () => {
    const watched = await openWatchedPage(suite.browser);
    const { page } = watched;
    await page.goto(`${framingUrl}?src=${encodeURIComponent(shareUrl(WINDOW_QUERY))}`);
    await page.waitForTimeout(1_500);
    const framed = page.frames().find((f) => f !== page.mainFrame());
    expect(framed).toBeDefined();
    expect(await framed!.locator('[data-panel]').count()).toBe(0);
    // Chromium reports the refusal on the framing page's console, which is this test's point
    watched.assertClean([/frame-ancestors|X-Frame-Options|Refused to (display|frame)/i]);
    await watched.close();
  });

  it('turned off: the page is the one 404 page, byte for byte the unknown hash’s, and the data routes 404', async () => {
    const put = await suite.dash.api.request('PUT', `/api/v1/sites/${suite.dash.siteId}/settings/public-dashboard`, {
      token: suite.dash.owner.token,
      body: { enabled: false },
    });
    expect(put.status).toBe(200);
    const turnedOffAt = Date.now();
    // the gateway's share lookup cache drops the site on settings.changed (the bus: not synchronous)
    await expect.poll(async () => (await fetch(shareUrl())).status, { timeout: 5_000, interval: 50 }).toBe(404);
    console.info(`[figure] share page 404 ${Date.now() - turnedOffAt} ms after the public dashboard was turned off`);
    const off = await fetch(shareUrl());
    const unknown = await fetch(`${suite.dash.base}/share/${'z'.repeat(suite.dash.hash.length)}`);
    expect([off.status, unknown.status]).toEqual([404, 404]);
    const offBody = await off.text();
    expect(offBody).toBe(await unknown.text());
    const data = await fetch(`${suite.dash.base}/api/v1/share/${suite.dash.hash}/query`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ metrics: ['visitors'], date_range: '30d' }),
    });
    expect(data.status).toBe(404);
    expect(((await data.json()) as { code: string }).code).toBe('unknown_site');

    const watched = await openWatchedPage(suite.browser);
    const { page } = watched;
    const shown = await page.goto(shareUrl(WINDOW_QUERY));
    expect(shown!.status()).toBe(404);
    expect(await page.locator('[data-panel]').count()).toBe(0);
    expect(await page.getByRole('heading').first().innerText()).toMatch(/not found/i);
    await saveScreenshot(page, 'share-off-404');
    // the document's own 404 is the only console line Chromium may print
    watched.assertClean([/status of 404 .*\/share\//]);
    await watched.close();
  });
});

async function frameAt(frames: () => Frame[], url: string): Promise<Frame> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const frame = frames().find((f) => f.url() === url);
    if (frame) return frame;
    if (Date.now() > deadline)
      throw new Error(
        `no frame at ${url}: ${frames()
          .map((f) => f.url())
          .join(', ')}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
