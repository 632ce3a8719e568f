import { describe, expect, it } from 'vitest';
import { runAxe } from './test-support/dashboard/axe.js';
import { chromiumAvailable, openWatchedPage, saveScreenshot, type WatchedPage } from './test-support/dashboard/chromium.js';
import { snippet } from './test-support/widgets/host-page.js';
import { EXPECTED, HOSTILE } from './test-support/widgets/seed.js';
import { widgetSuite } from './test-support/widgets/widget-suite.js';
import { probeScript, waitForState, type InPage, widgetLabels, widgetRows, widgetText } from './test-support/widgets/widget-probe.js';

// Issue 32: each widget embedded on a page of another origin under a strict CSP, against
// a server holding the seed's data (test-support/widgets/seed.ts, numbers derived by hand).
const enabled = chromiumAvailable('widgets-render');

describe.runIf(enabled)('widgets on a host page of another origin', () => {
  let allFour: string;
  const suite = widgetSuite('widgets_render', async ({ backend, host }) => {
    allFour = host.page(
      'all-four',
      [
        snippet(backend.base, 'live-users', backend.key, 'live'),
        snippet(backend.base, 'countries', backend.key, 'countries'),
        snippet(backend.base, 'map', backend.key, 'map', { window: '7d' }),
        snippet(backend.base, 'globe', backend.key, 'globe', { size: '320' }),
      ].join('\n'),
    );
  });

  async function open(options: Parameters<typeof openWatchedPage>[1] = {}, openRoots = false): Promise<WatchedPage> {
    const watched = await openWatchedPage(suite.browser, options);
    await watched.context.addInitScript({ content: probeScript(openRoots) });
    await watched.page.goto(allFour);
    for (const id of ['live', 'countries', 'map', 'globe']) await waitForState(watched.page, id, 'ready');
    return watched;
  }

  it('shows the hand-computed numbers in each widget, inert to the host page', async () => {
    const w = await open();
    try {
      const { page } = w;
      // live-users: a, b, c, x in the last 5 minutes; one visitor a minute at most
      expect(await widgetText(page, 'live')).toBe(`${EXPECTED.liveVisitors} visitors in the last 5 minutes`);
      expect(await widgetLabels(page, 'live')).toEqual([
        `Live visitors: ${EXPECTED.liveVisitors} in the last 5 minutes, at most ${EXPECTED.sparklinePeak} a minute over the last 30 minutes`,
      ]);

      // countries over 30 days: 10 visitors, DE 5 (50.0 %), four countries at 1 (10.0 %) by code
      expect(await widgetRows(page, 'countries')).toEqual(EXPECTED.days30.rows);
      expect(await widgetLabels(page, 'countries')).toEqual([`Top countries, last 30 days: ${EXPECTED.days30.visitors} visitors`]);
      expect(await widgetText(page, 'countries')).toContain('IP geolocation by DB-IP');

      // map over 7 days: 9 visitors, DE 4 → class 5, the four others at 1 → 1 + floor(1/4 × 4.999) = class 2
      expect((await widgetLabels(page, 'map'))[0]).toBe(`Visitors by country (map), last 7 days: ${EXPECTED.days7.visitors} visitors from 5 countries`);
      const shaded = await page.evaluate(() => {
        const root = (globalThis as InPage).__widgetRoots.get('map')!;
        return Object.fromEntries([...root.querySelectorAll('path[class^="l"]')].map((p: InPage) => [p.dataset['code'], p.getAttribute('class')]));
      });
      expect(shaded).toEqual({ DE: 'l5', FR: 'l2', GB: 'l2', NL: 'l2', US: 'l2' });
      expect(await widgetRows(page, 'map')).toEqual(EXPECTED.days7.rows);
      // the legend runs from 1 to the busiest country's 4
      expect(await widgetText(page, 'map')).toContain('1 4 visitors');

      // hover values: the pointer over Germany shows its numbers
      const germany = await page.evaluate(() => {
        const root = (globalThis as InPage).__widgetRoots.get('map')!;
        const box = root.querySelector('path[data-code="DE"]')!.getBoundingClientRect();
        return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
      });
      await page.mouse.move(germany.x, germany.y);
      await page.waitForFunction(() => {
        const tip = (globalThis as InPage).__widgetRoots.get('map')!.querySelector('.tip');
        return tip !== null && !tip.hasAttribute('hidden');
      });
      expect(await page.evaluate(() => (globalThis as InPage).__widgetRoots.get('map')!.querySelector('.tip')!.textContent)).toBe(
        'Germany: 4 visitors (44.4%)',
      );

      // globe: 6 visitors in 30 minutes from 4 cities
      expect(await widgetLabels(page, 'globe')).toEqual([
        `Globe of ${EXPECTED.globe.visitors} visitors in the last 30 minutes from ${EXPECTED.globe.places} places; ${EXPECTED.globe.countries.join(', ')}`,
      ]);
      expect(await widgetText(page, 'globe')).toBe(`${EXPECTED.globe.visitors} visitors in the last 30 minutes IP geolocation by DB-IP`);

      // the host page: its own content intact, the roots closed, its CSS kept out
      expect(await page.textContent('#host-text')).toBe("The host's own content stays as it is.");
      expect(
        await page.evaluate(() => ['live', 'countries', 'map', 'globe'].map((id) => (globalThis as InPage).document.getElementById(id)!.shadowRoot)),
      ).toEqual([null, null, null, null]);
      expect(
        await page.evaluate(() => {
          const root = (globalThis as InPage).__widgetRoots.get('countries')!;
          return (globalThis as InPage).getComputedStyle(root.querySelector('li')!).display;
        }),
      ).toBe('grid');
      // nothing hostile got out of the stored events
      const all = (await Promise.all(['live', 'countries', 'map', 'globe'].map((id) => widgetText(page, id)))).join(' ');
      for (const value of Object.values(HOSTILE)) expect(all).not.toContain(value);
      await saveScreenshot(page, 'widgets-desktop-light');
      w.assertClean();
    } finally {
      await w.close();
    }
  });

  it('follows prefers-color-scheme with data-theme="auto", and a forced dark theme', async () => {
    const page = suite.host.page(
      'themes',
      [
        snippet(suite.backend.base, 'countries', suite.backend.key, 'auto', { theme: 'auto' }),
        snippet(suite.backend.base, 'live-users', suite.backend.key, 'dark', { theme: 'dark', accent: '#ff6600' }),
        snippet(suite.backend.base, 'countries', suite.backend.key, 'light'),
      ].join('\n'),
    );
    const w = await openWatchedPage(suite.browser, { colorScheme: 'dark' });
    try {
      await w.context.addInitScript({ content: probeScript() });
      await w.page.goto(page);
      for (const id of ['auto', 'dark', 'light']) await waitForState(w.page, id, 'ready');
      const colours = await w.page.evaluate(() =>
        ['auto', 'dark', 'light'].map((id) => {
          const body = (globalThis as InPage).__widgetRoots.get(id)!.querySelector('.w')!;
          return [
            (globalThis as InPage).getComputedStyle(body).backgroundColor,
            (globalThis as InPage).getComputedStyle(body).getPropertyValue('--accent').trim(),
          ];
        }),
      );
      expect(colours).toEqual([
        ['rgb(13, 17, 23)', '#818cf8'],
        ['rgb(13, 17, 23)', '#ff6600'],
        ['rgb(255, 255, 255)', '#4f46e5'],
      ]);
      await saveScreenshot(w.page, 'widgets-dark');
      w.assertClean();
    } finally {
      await w.close();
    }
  });

  it('fits a 390 px phone without sideways scrolling', async () => {
    const w = await open({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    try {
      expect(await w.page.evaluate(() => (globalThis as InPage).document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      const widths = await w.page.evaluate(() =>
        ['live', 'countries', 'map', 'globe'].map((id) => (globalThis as InPage).document.getElementById(id)!.getBoundingClientRect().right),
      );
      for (const right of widths) expect(right).toBeLessThanOrEqual(390);
      await saveScreenshot(w.page, 'widgets-phone');
      w.assertClean();
    } finally {
      await w.close();
    }
  });

  it('passes axe-core (WCAG 2.x A/AA and best practice) with the roots opened for it', async () => {
    const w = await open({}, true);
    try {
      expect(await runAxe(w.page)).toEqual([]);
      w.assertClean();
    } finally {
      await w.close();
    }
  });

  it('names countries in data-locale and groups numbers its way', async () => {
    const page = suite.host.page('locale', snippet(suite.backend.base, 'countries', suite.backend.key, 'de', { locale: 'de-DE', limit: '2' }));
    const w = await openWatchedPage(suite.browser);
    try {
      await w.context.addInitScript({ content: probeScript() });
      await w.page.goto(page);
      await waitForState(w.page, 'de', 'ready');
      // data-limit=2: the first two rows of the 30-day list, in German
      expect(await widgetRows(w.page, 'de')).toEqual([
        ['Deutschland', '5', '50,0%'],
        ['Frankreich', '1', '10,0%'],
      ]);
      w.assertClean();
    } finally {
      await w.close();
    }
  });

  it('shows a refused key as a quiet placeholder, without an error on the host page', async () => {
    const page = suite.host.page('bad-key', snippet(suite.backend.base, 'countries', `wk_${'A'.repeat(43)}`, 'bad'));
    const w = await openWatchedPage(suite.browser);
    try {
      await w.context.addInitScript({ content: probeScript() });
      await w.page.goto(page);
      await waitForState(w.page, 'bad', 'error');
      expect(await widgetText(w.page, 'bad')).toBe('Visitor countries are unavailable right now.');
      expect(await w.page.textContent('#host-text')).toBe("The host's own content stays as it is.");
      // Chromium logs the 404 itself; nothing else may appear
      w.assertClean([/status of 404 .*\/api\/v1\/widgets\/countries/]);
    } finally {
      await w.close();
    }
  });
});
