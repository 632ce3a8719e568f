import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { chromiumAvailable, openWatchedPage, saveScreenshot, type WatchedPage } from './test-support/dashboard/chromium.js';
import { snippet } from './test-support/widgets/host-page.js';
import { EXPECTED } from './test-support/widgets/seed.js';
import { widgetSuite } from './test-support/widgets/widget-suite.js';
import { probeScript, waitForState, widgetLabels, widgetRows, widgetText, type InPage } from './test-support/widgets/widget-probe.js';

// Issue 32: what happens to embedded widgets over time — a live visit, the key rotated,
// the site deleted, the server gone — and the globe's motion and fallback. Timers in the
// page run on Playwright's clock (fast-forwarded past the 30 s and 5 min refreshes).
const enabled = chromiumAvailable('widgets-lifecycle');
const DATA = '/api/v1/widgets/';
/** what Chromium itself logs for a refused or failed request: not the widget's doing */
/** per page: whether no data request is in flight */
const quiet = new WeakMap<Page, () => boolean>();
const NETWORK_NOISE = [/status of 404 .*\/api\/v1\/widgets\//, /net::ERR_CONNECTION_REFUSED/, /net::ERR_EMPTY_RESPONSE/, /net::ERR_CONNECTION_RESET/];

describe.runIf(enabled)('embedded widgets over time', { timeout: 240_000 }, () => {
  const suite = widgetSuite('widgets_lifecycle');

  /** A page on the host site holding `html`, its timers on a controlled clock (unless `realTime`). */
  async function open(
    name: string,
    html: string,
    options: { realTime?: boolean; context?: Parameters<typeof openWatchedPage>[1]; initScript?: string } = {},
  ): Promise<WatchedPage & { dataRequests: string[] }> {
    const w = await openWatchedPage(suite.browser, options.context ?? {});
    await w.context.addInitScript({ content: probeScript() });
    if (options.initScript) await w.context.addInitScript({ content: options.initScript });
    if (!options.realTime) await w.page.clock.install();
    const dataRequests: string[] = [];
    let inFlight = 0;
    w.page.on('request', (request) => {
      if (!request.url().includes(DATA)) return;
      dataRequests.push(request.url());
      inFlight += 1;
    });
    const settled = (request: { url(): string }) => {
      if (request.url().includes(DATA)) inFlight -= 1;
    };
    w.page.on('requestfinished', settled);
    w.page.on('requestfailed', settled);
    quiet.set(w.page, () => inFlight === 0);
    await w.page.goto(suite.host.page(name, html));
    return Object.assign(w, { dataRequests });
  }

  /**
   * Fast-forwards the page's clock by `step` until `check` holds (the server reuses an
   * answer for 15 s, and a live event takes a moment to be stored). Never while a data
   * request is in flight: the jump would fire the widget's 10 s request timeout.
   */
  async function advanceUntil(page: Page, step: number, check: () => Promise<boolean>, realSeconds = 120): Promise<void> {
    const deadline = Date.now() + realSeconds * 1000;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error('the widget never changed');
      // (at most 10 s: a request the page never reports finished must not stall the test)
      const settle = Date.now() + 10_000;
      while (!quiet.get(page)!() && Date.now() < settle) await new Promise((resolve) => setTimeout(resolve, 100));
      await page.clock.fastForward(step);
      await new Promise((resolve) => setTimeout(resolve, 1500));
    }
  }

  it('refreshes live visitors and the globe after a live visit', async () => {
    const w = await open(
      'live',
      [
        snippet(suite.backend.base, 'live-users', suite.backend.key, 'live'),
        snippet(suite.backend.base, 'globe', suite.backend.key, 'globe', { size: '240' }),
      ].join('\n'),
    );
    try {
      await waitForState(w.page, 'live', 'ready');
      await waitForState(w.page, 'globe', 'ready');
      expect(await widgetText(w.page, 'live')).toBe(`${EXPECTED.liveVisitors} visitors in the last 5 minutes`);
      await suite.backend.addLiveVisit();
      // one more visitor, from an address without geo: 5 in the last 5 minutes; 7 in 30
      // minutes, still from 4 places and the same countries (no marker, no country for it)
      await advanceUntil(w.page, 30_000, async () => (await widgetText(w.page, 'live')) === `${EXPECTED.liveVisitors + 1} visitors in the last 5 minutes`);
      await advanceUntil(
        w.page,
        30_000,
        async () =>
          (await widgetLabels(w.page, 'globe'))[0]?.startsWith(
            `Globe of ${EXPECTED.globe.visitors + 1} visitors in the last 30 minutes from ${EXPECTED.globe.places} places; ${EXPECTED.globe.countries.join(', ')}`,
          ) ?? false,
      );
      await saveScreenshot(w.page, 'widgets-after-live-visit');
      w.assertClean();
    } finally {
      await w.close();
    }
  });

  it('stops asking, quietly, once the key is rotated; the new key works', async () => {
    const w = await open(
      'rotated',
      [snippet(suite.backend.base, 'live-users', suite.backend.key, 'live'), snippet(suite.backend.base, 'countries', suite.backend.key, 'countries')].join(
        '\n',
      ),
    );
    try {
      await waitForState(w.page, 'live', 'ready');
      await waitForState(w.page, 'countries', 'ready');
      await suite.backend.rotateKey();
      await advanceUntil(w.page, 30_000, async () => (await w.page.getAttribute('#live', 'data-state')) === 'error');
      await advanceUntil(w.page, 5 * 60_000, async () => (await w.page.getAttribute('#countries', 'data-state')) === 'error');
      expect(await widgetText(w.page, 'live')).toBe('Live visitors are unavailable right now.');
      expect(await widgetText(w.page, 'countries')).toBe('Visitor countries are unavailable right now.');
      expect(await w.page.textContent('#host-text')).toBe("The host's own content stays as it is.");
      // a refused key is final: three hours on, not one more request
      const asked = w.dataRequests.length;
      for (let i = 0; i < 36; i += 1) await w.page.clock.fastForward(5 * 60_000);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(w.dataRequests.length).toBe(asked);
      w.assertClean(NETWORK_NOISE);
    } finally {
      await w.close();
    }
    const fresh = await open('rotated-new-key', snippet(suite.backend.base, 'countries', suite.backend.key, 'countries'));
    try {
      await waitForState(fresh.page, 'countries', 'ready');
      // the seed's 30 days plus the earlier test's live visitor (no country): 11 visitors,
      // DE 5 (45.5 %), FR, GB, NL, US 1 each (9.1 %)
      expect(await widgetRows(fresh.page, 'countries')).toEqual([
        ['Germany', '5', '45.5%'],
        ['France', '1', '9.1%'],
        ['United Kingdom', '1', '9.1%'],
        ['Netherlands', '1', '9.1%'],
        ['United States', '1', '9.1%'],
      ]);
      fresh.assertClean();
    } finally {
      await fresh.close();
    }
  });

  it('stops, quietly, once the site is deleted', async () => {
    const w = await open('deleted', snippet(suite.backend.base, 'map', suite.backend.key, 'map'));
    try {
      await waitForState(w.page, 'map', 'ready');
      await suite.backend.deleteSite();
      await advanceUntil(w.page, 5 * 60_000, async () => (await w.page.getAttribute('#map', 'data-state')) === 'error');
      expect(await widgetText(w.page, 'map')).toBe('The visitors map is unavailable right now.');
      const asked = w.dataRequests.length;
      for (let i = 0; i < 12; i += 1) await w.page.clock.fastForward(15 * 60_000);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(w.dataRequests.length).toBe(asked);
      w.assertClean(NETWORK_NOISE);
    } finally {
      await w.close();
    }
  }, 120_000);
});

describe.runIf(enabled)('embedded widgets when the server stops', { timeout: 240_000 }, () => {
  const suite = widgetSuite('widgets_outage');

  it('leaves the host page intact with a quiet placeholder', async () => {
    const w = await openWatchedPage(suite.browser);
    try {
      await w.context.addInitScript({ content: probeScript() });
      await w.page.clock.install();
      await w.page.goto(
        suite.host.page(
          'stopping',
          [
            snippet(suite.backend.base, 'live-users', suite.backend.key, 'live'),
            snippet(suite.backend.base, 'globe', suite.backend.key, 'globe', { size: '200' }),
          ].join('\n'),
        ),
      );
      await waitForState(w.page, 'live', 'ready');
      await waitForState(w.page, 'globe', 'ready');
      await suite.backend.stop();
      // the browser may answer from its HTTP cache (max-age=15, real time) for a little while
      const deadline = Date.now() + 45_000;
      while ((await w.page.getAttribute('#live', 'data-state')) !== 'error' && Date.now() < deadline) {
        await w.page.clock.fastForward(30_000);
        await new Promise((resolve) => setTimeout(resolve, 1500));
      }
      expect(await w.page.getAttribute('#live', 'data-state')).toBe('error');
      expect(await widgetText(w.page, 'live')).toBe('Live visitors are unavailable right now.');
      expect(await w.page.textContent('#host-text')).toBe("The host's own content stays as it is.");
      expect(await w.page.evaluate(() => (globalThis as InPage).document.querySelectorAll('main .slot').length)).toBe(2);
      await saveScreenshot(w.page, 'widgets-server-stopped');
      // only Chromium's own line for each refused connection
      w.assertClean(NETWORK_NOISE);
    } finally {
      await w.close();
    }
  }, 90_000);
});

describe.runIf(enabled)('the globe and motion', { timeout: 240_000 }, () => {
  const suite = widgetSuite('widgets_globe');

  async function globeFrames(reducedMotion: 'reduce' | 'no-preference'): Promise<{ same: boolean; dotAnimation: string }> {
    const w = await openWatchedPage(suite.browser, { reducedMotion });
    try {
      await w.context.addInitScript({ content: probeScript() });
      await w.page.goto(
        suite.host.page(
          `motion-${reducedMotion}`,
          [
            snippet(suite.backend.base, 'globe', suite.backend.key, 'globe', { size: '240' }),
            snippet(suite.backend.base, 'live-users', suite.backend.key, 'live'),
          ].join('\n'),
        ),
      );
      await waitForState(w.page, 'globe', 'ready');
      await waitForState(w.page, 'live', 'ready');
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const first = await w.page.locator('#globe').screenshot();
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const second = await w.page.locator('#globe').screenshot();
      const dotAnimation = await w.page.evaluate(
        () => (globalThis as InPage).getComputedStyle((globalThis as InPage).__widgetRoots.get('live').querySelector('.dot')).animationName as string,
      );
      await saveScreenshot(w.page, `widgets-globe-${reducedMotion}`);
      w.assertClean();
      return { same: first.equals(second), dotAnimation };
    } finally {
      await w.close();
    }
  }

  it('rotates and pulses, and holds still under prefers-reduced-motion', async () => {
    expect(await globeFrames('no-preference')).toEqual({ same: false, dotAnimation: 'pulse' });
    expect(await globeFrames('reduce')).toEqual({ same: true, dotAnimation: 'none' });
  });

  it('falls back to the country list without WebGL', async () => {
    const w = await openWatchedPage(suite.browser);
    try {
      await w.context.addInitScript({ content: probeScript() });
      // this browser without WebGL: every webgl context request answers null
      await w.context.addInitScript({
        content: `(() => { const get = HTMLCanvasElement.prototype.getContext; HTMLCanvasElement.prototype.getContext = function (type, ...rest) { return /webgl/.test(type) ? null : get.call(this, type, ...rest); }; })();`,
      });
      await w.page.goto(suite.host.page('no-webgl', snippet(suite.backend.base, 'globe', suite.backend.key, 'globe')));
      await waitForState(w.page, 'globe', 'ready');
      // 30 minutes: DE 3 of 6 (50.0 %), FR, GB, US 1 each (16.7 %)
      expect(await widgetRows(w.page, 'globe')).toEqual([
        ['Germany', '3', '50.0%'],
        ['France', '1', '16.7%'],
        ['United Kingdom', '1', '16.7%'],
        ['United States', '1', '16.7%'],
      ]);
      expect(await widgetText(w.page, 'globe')).toContain('IP geolocation by DB-IP');
      await saveScreenshot(w.page, 'widgets-globe-no-webgl');
      w.assertClean();
    } finally {
      await w.close();
    }
  });
});
