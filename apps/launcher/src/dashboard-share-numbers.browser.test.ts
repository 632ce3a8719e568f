import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { expectApiMatchesHandNumbers } from './test-support/dashboard/api-answers.js';
import { dashboardSuite } from './test-support/dashboard/browser-suite.js';
import { chromiumAvailable, saveScreenshot } from './test-support/dashboard/chromium.js';
import { apiQuery } from './test-support/dashboard/dashboard-server.js';
import { breakdownRows, graphTable, openTab, panel, shown, statText, waitForPanels, type InPage, type PanelName } from './test-support/dashboard/panels.js';
import {
  BROWSERS,
  CHANNELS,
  COUNTRIES,
  DAILY,
  DEVICES,
  DIRECT_VISITORS,
  ENTRY_PAGES,
  GOAL,
  GOAL_ROW,
  HOSTILE,
  PLAN_PROPS,
  TOP_OS,
  TOP_PAGES,
  TOTALS_TEXT,
  WINDOW,
} from './test-support/dashboard/seed.js';

// The public dashboard (/share/<hash>) over the hand-built data set of test-support/dashboard/seed.ts:
// every panel shows the numbers computed by hand there, which are also the API's own answers.
const hasChromium = chromiumAvailable('dashboard share numbers');

const STAT_LABELS = {
  visitors: 'Visitors',
  visits: 'Visits',
  pageviews: 'Pageviews',
  views_per_visit: 'Views per visit',
  bounce_rate: 'Bounce rate',
  visit_duration: 'Visit duration',
} as const;

// a browser test waits on re-renders and the server; CI runs the suites side by side on 2 cores
describe.skipIf(!hasChromium)('the share page shows the hand-computed numbers', { timeout: 120_000 }, () => {
  const suite = dashboardSuite({ name: 'dash_share_numbers' }, { page: {}, sharePage: true });

  /** The open tab's rows are the API's top rows for the same breakdown, label and formatted value. */
  async function expectTabIsApi(name: PanelName, dimension: string, metric = 'visitors', filters: unknown[] = []) {
    const answer = await apiQuery(suite.dash, { metrics: [metric], date_range: [WINDOW.from, WINDOW.to], dimensions: [dimension], filters, limit: 9 });
    const fromApi = answer.results.map((r) => ({ label: r.labels?.[dimension] ?? r.dimensions![dimension]!, value: shown(metric, r.metrics[metric]) }));
    expect(fromApi.length).toBeGreaterThan(0);
    await expect.poll(() => breakdownRows(suite.page, name)).toEqual(fromApi);
  }

  it('the API answers the hand-computed numbers over the seeded site', async () => {
    await expectApiMatchesHandNumbers(suite.dash);
  });

  it('top stats: the six totals of the custom range, marked as including imported data', async () => {
    for (const [metric, label] of Object.entries(STAT_LABELS))
      await expect.poll(() => statText(suite.page, label)).toBe(`${label} ${TOTALS_TEXT[metric as keyof typeof TOTALS_TEXT]}`);
    await expect.poll(() => panel(suite.page, 'top-stats').getByText('Visitors now').count()).toBe(1);
    expect(await panel(suite.page, 'top-stats').getByText('Includes imported data').count()).toBe(1);
    await saveScreenshot(suite.page, 'share-desktop-light');
  });

  it('graph: visitors per day as a table, and pageviews once that stat is picked', async () => {
    expect(await graphTable(suite.page)).toEqual(DAILY.map((d) => [d.day, String(d.visitors)]));
    await statClick(suite.page, 'Pageviews');
    expect(new URL(suite.page.url()).searchParams.get('metric')).toBe('pageviews');
    await expect.poll(() => panel(suite.page, 'graph').getByRole('heading', { level: 2 }).innerText()).toBe('Pageviews');
    expect(await graphTable(suite.page)).toEqual(DAILY.map((d) => [d.day, String(d.pageviews)]));
    await statClick(suite.page, 'Visitors');
  });

  it('sources: channels, sources and UTM tabs', async () => {
    await openTab(suite.page, 'sources', 'Channels');
    await expectTabIsApi('sources', 'visit:channel');
    expect((await breakdownRows(suite.page, 'sources'))[0]).toEqual({ label: CHANNELS[0]![0], value: String(CHANNELS[0]![1]) });
    await openTab(suite.page, 'sources', 'Sources');
    await expectTabIsApi('sources', 'visit:source');
    const sources = await breakdownRows(suite.page, 'sources');
    expect(sources[0]!.value).toBe(String(DIRECT_VISITORS));
    expect(sources.map((r) => r.label)).toEqual(expect.arrayContaining(['Google', 'newsletter', 'Hacker News', HOSTILE.utmSource]));
    await openTab(suite.page, 'sources', 'UTM medium');
    await expectTabIsApi('sources', 'visit:utm_medium');
    expect((await breakdownRows(suite.page, 'sources')).map((r) => r.label)).toEqual(expect.arrayContaining(['email', HOSTILE.utmMedium]));
  });

  it('pages: top, entry and exit pages', async () => {
    await openTab(suite.page, 'pages', 'Top pages');
    await expectTabIsApi('pages', 'event:page');
    expect((await breakdownRows(suite.page, 'pages')).slice(0, 3)).toEqual(TOP_PAGES.map(([label, visitors]) => ({ label, value: String(visitors) })));
    await openTab(suite.page, 'pages', 'Entry pages');
    await expectTabIsApi('pages', 'visit:entry_page');
    // the entry tab ranks by visitors; the hand-counted visits of its top rows are the API's (api-answers.ts)
    expect((await breakdownRows(suite.page, 'pages')).slice(0, 2).map((r) => r.label)).toEqual(ENTRY_PAGES.map(([label]) => label));
    await openTab(suite.page, 'pages', 'Exit pages');
    await expectTabIsApi('pages', 'visit:exit_page');
  });

  it('locations: countries with their names, regions', async () => {
    await openTab(suite.page, 'locations', 'Countries');
    await expectTabIsApi('locations', 'visit:country');
    const countries = await breakdownRows(suite.page, 'locations');
    expect(countries[0]).toEqual({ label: 'Germany', value: '2' });
    expect(countries.map((r) => r.label).sort()).toEqual(COUNTRIES.map(([, name]) => name).sort());
    await openTab(suite.page, 'locations', 'Regions');
    await expectTabIsApi('locations', 'visit:region');
    expect(await suite.page.getByRole('link', { name: 'DB-IP' }).count()).toBe(1);
  });

  it('devices: browsers, operating systems, devices', async () => {
    await openTab(suite.page, 'devices', 'Browsers');
    await expectTabIsApi('devices', 'visit:browser');
    expect((await breakdownRows(suite.page, 'devices'))[0]).toEqual({ label: BROWSERS[0]![0], value: String(BROWSERS[0]![1]) });
    await openTab(suite.page, 'devices', 'Operating systems');
    await expectTabIsApi('devices', 'visit:os');
    expect((await breakdownRows(suite.page, 'devices'))[0]).toEqual({ label: TOP_OS[0], value: String(TOP_OS[1]) });
    await openTab(suite.page, 'devices', 'Devices');
    await expect.poll(() => breakdownRows(suite.page, 'devices')).toEqual(DEVICES.map(([label, visitors]) => ({ label, value: String(visitors) })));
  });

  it('goals: the goal, the custom events, and a property breakdown once an event is picked', async () => {
    await openTab(suite.page, 'goals', 'Goals');
    await expect.poll(() => breakdownRows(suite.page, 'goals')).toEqual([{ label: GOAL, value: String(GOAL_ROW.visitors) }]);
    await openTab(suite.page, 'goals', 'Custom events');
    await expectTabIsApi('goals', 'event:name');
    await openTab(suite.page, 'goals', 'Properties');
    // no event picked yet: the tab lists the custom events to pick from
    await panel(suite.page, 'goals').getByRole('button', { name: GOAL, exact: true }).click();
    await waitForPanels(suite.page);
    expect(new URL(suite.page.url()).searchParams.getAll('f')).toEqual([`is,event,${GOAL}`]);
    await openTab(suite.page, 'goals', 'Properties');
    await expect.poll(() => panel(suite.page, 'goals').getByLabel(`Property of “${GOAL}”`).inputValue()).toBe('plan');
    await waitForPanels(suite.page);
    await expect.poll(() => breakdownRows(suite.page, 'goals')).toEqual(PLAN_PROPS.map(([label, visitors]) => ({ label, value: String(visitors) })));
    await expectTabIsApi('goals', 'event:props:plan', 'visitors', [{ field: 'event', operator: 'is', values: [GOAL] }]);
    // under the event filter the top stats count the converting visits only: a c e → 3 visitors
    await expect.poll(() => statText(suite.page, 'Visitors')).toBe('Visitors 3');
    await suite.page.keyboard.press('Escape');
    await waitForPanels(suite.page);
    await expect.poll(() => statText(suite.page, 'Visitors')).toBe(`Visitors ${TOTALS_TEXT.visitors}`);
  });

  it('details: every metric of a tab as the API answers it, then search and sort', async () => {
    await openTab(suite.page, 'pages', 'Top pages');
    await panel(suite.page, 'pages')
      .getByRole('button', { name: /^Details/ })
      .click();
    const dialog = suite.page.getByRole('dialog', { name: 'Pages: Top pages' });
    await dialog.waitFor();
    const metrics = ['visitors', 'pageviews', 'bounce_rate', 'time_on_page', 'scroll_depth'];
    const answer = await apiQuery(suite.dash, { metrics, date_range: [WINDOW.from, WINDOW.to], dimensions: ['event:page'], limit: 20 });
    const expected = answer.results.map((r) => [r.dimensions!['event:page']!, ...metrics.map((m) => shown(m, r.metrics[m]))]);
    const cells = () =>
      dialog
        .locator('tbody tr')
        .evaluateAll((rows: InPage[]) => rows.map((row) => ([...row.cells] as InPage[]).map((cell) => String(cell.textContent).trim())));
    await expect.poll(cells).toEqual(expected);
    // /pricing by hand: 2 visitors, 3 pageviews
    expect((await cells()).find((r) => r[0] === '/pricing')?.slice(0, 3)).toEqual(['/pricing', '2', '3']);
    await dialog.getByRole('button', { name: 'Pageviews' }).click();
    await expect.poll(async () => (await cells()).map((r) => r[2])).toEqual(['4', '3', '3', '1', '1']);
    await dialog.getByLabel('Search').fill('pri');
    await expect.poll(async () => (await cells()).map((r) => r[0])).toEqual(['/pricing']);
    await dialog.getByRole('button', { name: 'Close' }).click();
    await expect.poll(() => suite.page.getByRole('dialog').count()).toBe(0);

    await openTab(suite.page, 'goals', 'Goals');
    await panel(suite.page, 'goals')
      .getByRole('button', { name: /^Details/ })
      .click();
    const goals = suite.page.getByRole('dialog', { name: 'Goals: Goals' });
    await expect
      .poll(() =>
        goals
          .locator('tbody tr')
          .evaluateAll((rows: InPage[]) => rows.map((row) => ([...row.cells] as InPage[]).map((cell) => String(cell.textContent).trim()))),
      )
      .toEqual([[GOAL, String(GOAL_ROW.visitors), String(GOAL_ROW.events), `${GOAL_ROW.conversion_rate}%`]]);
    await suite.page.keyboard.press('Escape');
    await expect.poll(() => suite.page.getByRole('dialog').count()).toBe(0);
  });

  it('left nothing in the console: no errors, no CSP violations, no dialogs — not even a missing favicon', () => {
    suite.watched.assertClean();
  });
});

async function statClick(page: Page, label: string) {
  await panel(page, 'top-stats')
    .getByRole('button', { name: new RegExp(`^${label}\\b`) })
    .click();
  await waitForPanels(page);
}
