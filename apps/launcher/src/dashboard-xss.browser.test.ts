import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { dashboardSuite } from './test-support/dashboard/browser-suite.js';
import { chromiumAvailable, openWatchedPage } from './test-support/dashboard/chromium.js';
import { apiQuery } from './test-support/dashboard/dashboard-server.js';
import { breakdownRows, openTab, panel, statText, WINDOW_QUERY, waitForPanels, type InPage, type PanelName } from './test-support/dashboard/panels.js';
import { HOSTILE, WINDOW } from './test-support/dashboard/seed.js';

// Event names, paths, props, referrers and UTM values are attacker-controlled: anyone can
// post to a tracking key. seed.ts puts <script>, <img onerror>, javascript: URLs, CRLF and
// NUL in each. The page must show them as text only: nothing runs (a window.__pwned trap,
// dialogs and CSP violations are failures), no link points anywhere but http(s), and
// filtering by such a value round-trips through the URL unchanged.
const hasChromium = chromiumAvailable('dashboard XSS seed');

/** Every tab of every panel, so each hostile value is rendered at least once. */
const TABS: Array<[PanelName, string[]]> = [
  ['sources', ['Channels', 'Sources', 'Referrers', 'UTM medium', 'UTM source', 'UTM campaign']],
  ['pages', ['Top pages', 'Entry pages', 'Exit pages']],
  ['locations', ['Map', 'Countries', 'Regions', 'Cities']],
  ['devices', ['Browsers', 'Operating systems', 'Devices']],
  ['goals', ['Goals', 'Custom events']],
];

// a browser test waits on re-renders and the server; CI runs the suites side by side on 2 cores
describe.skipIf(!hasChromium)('hostile values on the dashboard', { timeout: 120_000 }, () => {
  const suite = dashboardSuite({ name: 'dash_xss' }, { page: {}, sharePage: true });

  /** Each anchor's href resolves to http(s): same origin, or an outbound http(s) link. */
  async function expectOnlyHttpLinks() {
    const hrefs = await suite.page.locator('a[href]').evaluateAll((links: InPage[]) => links.map((a) => String(a.href)));
    for (const href of hrefs) expect(href, href).toMatch(/^https?:\/\//);
    return hrefs;
  }

  it('the traps catch a page that does run a hostile value (the check can fail)', async () => {
    const probe = await openWatchedPage(suite.browser);
    // a page without CSP that puts the seed's value into innerHTML, as a careless renderer would
    await probe.page.setContent(`<div id="x"></div><script>document.getElementById('x').innerHTML = ${JSON.stringify(HOSTILE.utmSource)};</script>`);
    await expect.poll(() => probe.problems.some((p) => p.includes('PWNED')) && probe.dialogs.length > 0).toBe(true);
    expect(() => probe.assertClean()).toThrow(/PWNED/);
    await probe.close();
  });

  it('every tab renders the hostile values as text, exactly, and nothing runs', async () => {
    const seen = new Set<string>();
    for (const [name, tabs] of TABS) {
      for (const tab of tabs) {
        await openTab(suite.page, name, tab);
        for (const row of await breakdownRows(suite.page, name)) seen.add(row.label);
        await expectOnlyHttpLinks();
      }
    }
    // each hostile value came back as the very same text (CR, LF and NUL included)
    for (const value of [
      HOSTILE.scriptPath,
      HOSTILE.controlPath,
      HOSTILE.javascriptReferrer,
      HOSTILE.controlReferrer,
      HOSTILE.utmSource,
      HOSTILE.utmMedium,
      HOSTILE.utmCampaign,
      HOSTILE.eventName,
    ]) {
      expect(seen.has(value), JSON.stringify(value)).toBe(true);
    }
    // no element was made from them
    expect(await suite.page.locator('img[src="x"], svg[onload], script:not([src]):not([type="application/json"])').count()).toBe(0);
    const html = await suite.page.content();
    expect(html).not.toContain('<script>window.__pwned');
    expect(html).not.toContain('<img src=x');
    suite.watched.assertClean();
  });

  it('a javascript: referrer is never a link; http(s) referrers are', async () => {
    await openTab(suite.page, 'sources', 'Referrers');
    const hrefs = await expectOnlyHttpLinks();
    expect(hrefs.some((h) => h.includes('google.com'))).toBe(true);
    expect(hrefs.some((h) => /javascript|alert|evil/i.test(h))).toBe(false);
    // the hostile referrers are rows of text, with no link of their own
    for (const value of [HOSTILE.javascriptReferrer, HOSTILE.controlReferrer]) {
      const row = panel(suite.page, 'sources')
        .getByRole('row')
        .filter({ hasText: value.slice(0, 10) });
      expect(await row.locator('a').count(), value).toBe(0);
    }
  });

  it('filtering by the CRLF/NUL path round-trips through the URL and a reload, inert', async () => {
    await openTab(suite.page, 'pages', 'Top pages');
    await panel(suite.page, 'pages').locator('tbody button').filter({ hasText: /^\/a/ }).click();
    await waitForPanels(suite.page);
    expect(new URL(suite.page.url()).searchParams.getAll('f')).toEqual([`is,page,${HOSTILE.controlPath}`]);
    await expect.poll(() => statText(suite.page, 'Visitors')).toBe('Visitors 1');
    await suite.page.reload();
    await waitForPanels(suite.page);
    expect(new URL(suite.page.url()).searchParams.getAll('f')).toEqual([`is,page,${HOSTILE.controlPath}`]);
    await expect.poll(() => statText(suite.page, 'Visitors')).toBe('Visitors 1');
    const filtered = await apiQuery(suite.dash, {
      metrics: ['visitors'],
      date_range: [WINDOW.from, WINDOW.to],
      filters: [{ field: 'page', operator: 'is', values: [HOSTILE.controlPath] }],
    });
    expect(filtered.results[0]!.metrics.visitors).toBe(1);
    const chip = await suite.page
      .getByRole('region', { name: 'Filters' })
      .locator('li')
      .first()
      .evaluate((li: InPage) => String(li.firstElementChild.textContent));
    expect(chip).toBe(`Page is ${HOSTILE.controlPath}`);
    suite.watched.assertClean();
  });

  it('the script path and the hostile event as filters: shown in chips and dialogs as text', async () => {
    await suite.page.goto(`${suite.dash.base}/share/${suite.dash.hash}?${WINDOW_QUERY}`);
    await waitForPanels(suite.page);
    await openTab(suite.page, 'goals', 'Custom events');
    await panel(suite.page, 'goals').locator('tbody button').filter({ hasText: '<script>alert(1)</script>' }).click();
    await waitForPanels(suite.page);
    expect(new URL(suite.page.url()).searchParams.getAll('f')).toEqual([`is,event,${HOSTILE.eventName}`]);
    await openTab(suite.page, 'goals', 'Properties');
    // GET /props lists the keys of the whole range (plan among them), not of one event
    const select = panel(suite.page, 'goals').getByRole('combobox');
    expect(await select.locator('option').allTextContents()).toContain(HOSTILE.propKey);
    await select.selectOption(HOSTILE.propKey);
    await waitForPanels(suite.page);
    await expect.poll(() => breakdownRows(suite.page, 'goals')).toEqual([{ label: HOSTILE.propValue, value: '1' }]);

    // the details dialog over the hostile pages, searched for the hostile text
    await openTab(suite.page, 'pages', 'Top pages');
    await panel(suite.page, 'pages')
      .getByRole('button', { name: /^Details/ })
      .click();
    const dialog = suite.page.getByRole('dialog');
    await dialog.getByLabel('Search').fill('<script>');
    await expect.poll(() => dialog.locator('tbody tr').count(), { timeout: 10_000 }).toBe(1);
    expect(await dialog.locator('tbody tr').first().innerText()).toContain('<script>window.__pwned=1;alert(1)</script>');
    await suite.page.keyboard.press('Escape');
    await expectOnlyHttpLinks();
    suite.watched.assertClean();
  });
});
