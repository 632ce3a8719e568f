import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { dashboardSuite } from './test-support/dashboard/browser-suite.js';
import { chromiumAvailable, openWatchedPage } from './test-support/dashboard/chromium.js';
import { apiQuery } from './test-support/dashboard/dashboard-server.js';
import {
  breakdownRows,
  graphTable,
  openTab,
  panel,
  shown,
  stat,
  statText,
  WINDOW_QUERY,
  waitForPanels,
  type PanelName,
} from './test-support/dashboard/panels.js';
import { CHANGE_TEXT, PREVIOUS_TOTALS, PRICING_CHROME_FILTERED, PRICING_FILTERED, TOTALS, WINDOW } from './test-support/dashboard/seed.js';

// The dashboard's state lives in the URL: a row click filters every panel and the URL;
// reload, back/forward and a copied URL give the same view; the period, interval and
// compare pickers change the URL and the numbers as the API answers them.
const hasChromium = chromiumAvailable('dashboard filters and URL state');

const range = [WINDOW.from, WINDOW.to];

// a browser test waits on re-renders and the server; CI runs the suites side by side on 2 cores
describe.skipIf(!hasChromium)('dashboard filters, URL state and pickers', { timeout: 120_000 }, () => {
  const suite = dashboardSuite({ name: 'dash_filters_url' }, { page: {} });

  const shareUrl = (query: string) => `${suite.dash.base}/share/${suite.dash.hash}?${query}`;
  const filtersInUrl = () => new URL(suite.page.url()).searchParams.getAll('f');

  /** Each breakdown panel's open tab shows the API's rows under these filters. */
  async function expectPanelsAreApi(filters: unknown[]) {
    const tabs: Array<[PanelName, string]> = [
      ['sources', 'visit:channel'],
      ['pages', 'event:page'],
      ['locations', 'visit:country'],
      ['devices', 'visit:device'],
      ['goals', 'event:goal'],
    ];
    for (const [name, dimension] of tabs) {
      const answer = await apiQuery(suite.dash, { metrics: ['visitors'], date_range: range, dimensions: [dimension], filters, limit: 9 });
      await expect
        .poll(() => breakdownRows(suite.page, name), { message: name })
        .toEqual(answer.results.map((r) => ({ label: r.labels?.[dimension] ?? r.dimensions![dimension]!, value: shown('visitors', r.metrics.visitors) })));
    }
    const series = await apiQuery(suite.dash, { metrics: ['visitors'], date_range: range, dimensions: ['time:day'], filters });
    expect(await graphTable(suite.page)).toEqual(series.results.map((r) => [r.dimensions!['time:day'], shown('visitors', r.metrics.visitors)]));
  }

  const PRICING = { field: 'page', operator: 'is', values: ['/pricing'] };
  const CHROME = { field: 'browser', operator: 'is', values: ['Chrome'] };

  it('a row click filters every panel and the URL; a second click adds a filter', async () => {
    await suite.page.goto(shareUrl(WINDOW_QUERY));
    await waitForPanels(suite.page);
    await expect.poll(() => statText(suite.page, 'Visitors')).toBe(`Visitors ${TOTALS.visitors}`);
    await openTab(suite.page, 'devices', 'Devices');
    await panel(suite.page, 'pages').getByRole('button', { name: '/pricing', exact: true }).click();
    await waitForPanels(suite.page);
    expect(filtersInUrl()).toEqual(['is,page,/pricing']);
    expect(await suite.page.getByRole('region', { name: 'Filters' }).getByText('Page is /pricing').count()).toBe(1);
    await expect.poll(() => statText(suite.page, 'Visitors')).toBe(`Visitors ${PRICING_FILTERED.visitors}`);
    await expect.poll(() => statText(suite.page, 'Pageviews')).toBe(`Pageviews ${PRICING_FILTERED.pageviews}`);
    await expectPanelsAreApi([PRICING]);

    await openTab(suite.page, 'devices', 'Browsers');
    await panel(suite.page, 'devices').getByRole('button', { name: 'Chrome', exact: true }).click();
    await waitForPanels(suite.page);
    expect(filtersInUrl()).toEqual(['is,page,/pricing', 'is,browser,Chrome']);
    await expect.poll(() => statText(suite.page, 'Visitors')).toBe(`Visitors ${PRICING_CHROME_FILTERED.visitors}`);
    await expect.poll(() => statText(suite.page, 'Pageviews')).toBe(`Pageviews ${PRICING_CHROME_FILTERED.pageviews}`);
    // a browser filter drills the Browsers tab down to versions: c's Chrome 120.0
    await expect.poll(() => breakdownRows(suite.page, 'devices')).toEqual([{ label: '120.0', value: '1' }]);
    await openTab(suite.page, 'devices', 'Devices');
    await expectPanelsAreApi([PRICING, CHROME]);
  });

  it('reload restores the view; back and forward step through the filters', async () => {
    await suite.page.reload();
    await waitForPanels(suite.page);
    expect(filtersInUrl()).toEqual(['is,page,/pricing', 'is,browser,Chrome']);
    await expect.poll(() => statText(suite.page, 'Visitors')).toBe(`Visitors ${PRICING_CHROME_FILTERED.visitors}`);
    expect(await suite.page.getByRole('button', { name: 'Remove filter: Browser is Chrome' }).count()).toBe(1);

    await suite.page.goBack();
    await waitForPanels(suite.page);
    expect(filtersInUrl()).toEqual(['is,page,/pricing']);
    await expect.poll(() => statText(suite.page, 'Visitors')).toBe(`Visitors ${PRICING_FILTERED.visitors}`);
    await suite.page.goBack();
    await waitForPanels(suite.page);
    expect(filtersInUrl()).toEqual([]);
    await expect.poll(() => statText(suite.page, 'Visitors')).toBe(`Visitors ${TOTALS.visitors}`);
    await suite.page.goForward();
    await waitForPanels(suite.page);
    expect(filtersInUrl()).toEqual(['is,page,/pricing']);
    await expect.poll(() => statText(suite.page, 'Visitors')).toBe(`Visitors ${PRICING_FILTERED.visitors}`);
  });

  it('a copied URL shows the same view in another browser; Esc clears the filters', async () => {
    const copied = suite.page.url();
    const other = await openWatchedPage(suite.browser);
    await other.page.goto(copied);
    await waitForPanels(other.page);
    await expect.poll(() => statText(other.page, 'Visitors')).toBe(`Visitors ${PRICING_FILTERED.visitors}`);
    other.assertClean();
    await other.close();

    await suite.page.getByRole('heading', { level: 1 }).click(); // focus on the page, not in a field
    await suite.page.keyboard.press('Escape');
    await waitForPanels(suite.page);
    expect(filtersInUrl()).toEqual([]);
    await expect.poll(() => statText(suite.page, 'Visitors')).toBe(`Visitors ${TOTALS.visitors}`);
  });

  it('the period picker: last 7 and 30 days, then a custom range typed in', async () => {
    const period = suite.page.getByRole('combobox', { name: /^Period/ });
    await period.selectOption('7d');
    await waitForPanels(suite.page);
    expect(new URL(suite.page.url()).searchParams.get('period')).toBe('7d');
    // the recent rows: r1 r2 two days ago; r3 ten days ago only in 30 days
    await expect.poll(() => statText(suite.page, 'Visitors')).toBe('Visitors 2');
    await period.selectOption('30d');
    await waitForPanels(suite.page);
    expect(new URL(suite.page.url()).searchParams.get('period')).toBe('30d');
    await expect.poll(() => statText(suite.page, 'Visitors')).toBe('Visitors 3');

    await period.selectOption('custom');
    await suite.page.getByLabel('From', { exact: true }).fill(WINDOW.from);
    await suite.page.getByLabel('To', { exact: true }).fill(WINDOW.to);
    await suite.page.getByRole('button', { name: 'Apply range' }).click();
    await waitForPanels(suite.page);
    const params = new URL(suite.page.url()).searchParams;
    expect([params.get('period'), params.get('from'), params.get('to')]).toEqual(['custom', WINDOW.from, WINDOW.to]);
    await expect.poll(() => statText(suite.page, 'Visitors')).toBe(`Visitors ${TOTALS.visitors}`);
  });

  it('the interval picker: hours over the custom range, as the API buckets them', async () => {
    const interval = panel(suite.page, 'graph').getByRole('combobox', { name: /^Interval/ });
    expect(await interval.locator('option').allInnerTexts()).toEqual(['Hour', 'Day']);
    await interval.selectOption('hour');
    await waitForPanels(suite.page);
    expect(new URL(suite.page.url()).searchParams.get('interval')).toBe('hour');
    const hourly = await apiQuery(suite.dash, { metrics: ['visitors'], date_range: range, dimensions: ['time:hour'] });
    const table = await graphTable(suite.page);
    expect(table).toHaveLength(7 * 24);
    expect(table).toEqual(hourly.results.map((r) => [r.dimensions!['time:hour'], shown('visitors', r.metrics.visitors)]));
    // S1 starts 03-05 10:00: one visitor in that hour
    expect(table.find(([bucket]) => bucket === '2024-03-05 10:00')).toEqual(['2024-03-05 10:00', '1']);
    await interval.selectOption('day');
    await waitForPanels(suite.page);
  });

  it('compare with the previous period shows each change and the previous value', async () => {
    await suite.page.getByRole('combobox', { name: /^Compare/ }).selectOption('previous');
    await waitForPanels(suite.page);
    expect(new URL(suite.page.url()).searchParams.get('compare')).toBe('previous');
    const labels = {
      visitors: 'Visitors',
      visits: 'Visits',
      pageviews: 'Pageviews',
      views_per_visit: 'Views per visit',
      bounce_rate: 'Bounce rate',
      visit_duration: 'Visit duration',
    } as const;
    for (const [metric, label] of Object.entries(labels)) {
      const text = await statText(suite.page, label);
      const key = metric as keyof typeof labels;
      expect(text, label).toContain(CHANGE_TEXT[key]);
      expect(text, label).toContain(`was ${shown(metric, PREVIOUS_TOTALS[key])}`);
    }
    // the graph's table gains the previous period, bucket by bucket: P is 02-26 .. 03-03 (2024 has
    // a 29 February), d on 02-28, a on 03-01
    const table = await graphTable(suite.page);
    expect(table.map((row) => row[2])).toEqual(['0', '0', '1', '0', '1', '0', '0']);
    await expect.poll(() => stat(suite.page, 'Visitors').getAttribute('aria-pressed')).toBe('true');
  });

  it('left nothing in the console: no errors, no CSP violations, no dialogs', () => {
    suite.watched.assertClean();
  });
});
