import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { dashboardSuite } from './test-support/dashboard/browser-suite.js';
import { chromiumAvailable, openWatchedPage } from './test-support/dashboard/chromium.js';
import { WINDOW_QUERY, waitForPanels } from './test-support/dashboard/panels.js';
import { parseCsv, readZip } from './test-support/dashboard/read-zip.js';
import { CHANNELS, DAILY, GOAL, GOAL_ROW, HOSTILE, PRICING_FILTERED, SITE_HOST, TOP_PAGES, TOTALS, WINDOW } from './test-support/dashboard/seed.js';

// "Export CSV": the current view's tables as CSV files in one ZIP, downloaded by the
// browser; read back here with a reader of our own and checked against seed.ts.
const hasChromium = chromiumAvailable('dashboard CSV export');

// a browser test waits on re-renders and the server; CI runs the suites side by side on 2 cores
describe.skipIf(!hasChromium)('the CSV export of the dashboard', { timeout: 120_000 }, () => {
  const suite = dashboardSuite({ name: 'dash_export' });

  async function exportOf(query: string): Promise<{ name: string; files: Map<string, string[][]> }> {
    const watched = await openWatchedPage(suite.browser, { acceptDownloads: true });
    const { page } = watched;
    await page.goto(`${suite.dash.base}/share/${suite.dash.hash}?${query}`);
    await waitForPanels(page);
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV' }).click();
    const file = await download;
    const zip = await readFile((await file.path())!);
    const files = new Map([...readZip(zip)].map(([name, bytes]) => [name, parseCsv(bytes.toString('utf8'))]));
    watched.assertClean();
    await watched.close();
    return { name: file.suggestedFilename(), files };
  }

  const rowsOf = (files: Map<string, string[][]>, name: string) => {
    const table = files.get(name);
    if (!table) throw new Error(`${name} not in the export: ${[...files.keys()].join(', ')}`);
    return table;
  };

  it('holds the top stats, the series and every tab of every panel, with the hand-computed numbers', async () => {
    const { name, files } = await exportOf(WINDOW_QUERY);
    expect(name).toBe(`${SITE_HOST}_${WINDOW.from}_${WINDOW.to}.zip`);
    for (const table of [
      'top_stats',
      'graph_day',
      'sources_channels',
      'sources_sources',
      'sources_referrers',
      'pages_top',
      'pages_entry',
      'pages_exit',
      'locations_countries',
      'devices_browsers',
      'devices_devices',
      'goals_goals',
      'goals_events',
    ]) {
      expect(files.has(`${table}.csv`), table).toBe(true);
    }
    const stats = rowsOf(files, 'top_stats.csv');
    expect(stats[0]).toEqual(['metric', 'value']);
    expect(Object.fromEntries(stats.slice(1).map(([metric, value]) => [metric, Number(value)]))).toEqual(TOTALS);

    const series = rowsOf(files, 'graph_day.csv');
    expect(series[0]!.slice(0, 2)).toEqual(['time:day', 'visitors']);
    expect(series.slice(1).map((r) => [r[0], Number(r[1])])).toEqual(DAILY.map((d) => [d.day, d.visitors]));

    const pages = rowsOf(files, 'pages_top.csv');
    expect(pages[0]!.slice(0, 3)).toEqual(['event:page', 'visitors', 'pageviews']);
    expect(pages.slice(1, 4).map((r) => [r[0], Number(r[1]), Number(r[2])])).toEqual(TOP_PAGES.map((p) => [...p]));
    // attacker text survives as the same cell: quoted CR/LF, NUL kept, never split into rows
    expect(pages.slice(1).map((r) => r[0])).toEqual(expect.arrayContaining([HOSTILE.controlPath, HOSTILE.scriptPath]));
    expect(pages).toHaveLength(1 + 5);

    const channels = rowsOf(files, 'sources_channels.csv');
    expect([channels[1]![0], Number(channels[1]![1])]).toEqual([...CHANNELS[0]!]);
    const countries = rowsOf(files, 'locations_countries.csv');
    expect(countries[0]!.slice(0, 3)).toEqual(['visit:country', 'name', 'visitors']);
    expect(countries[1]!.slice(0, 3)).toEqual(['DE', 'Germany', '2']);
    const goals = rowsOf(files, 'goals_goals.csv');
    expect(goals.slice(1).map((r) => [r[0], Number(r[1]), Number(r[2]), Number(r[3])])).toEqual([
      [GOAL, GOAL_ROW.visitors, GOAL_ROW.events, GOAL_ROW.conversion_rate],
    ]);
  });

  it('neutralises a spreadsheet formula in attacker text', async () => {
    const { files } = await exportOf(WINDOW_QUERY);
    const campaigns = rowsOf(files, 'sources_utm_campaign.csv').map((r) => r[0]);
    expect(campaigns).toContain(`'${HOSTILE.utmCampaign}`);
    expect(campaigns).not.toContain(HOSTILE.utmCampaign);
  });

  it('exports the filtered view when a filter is on', async () => {
    const { files } = await exportOf(`${WINDOW_QUERY}&f=is,page,/pricing`);
    const stats = Object.fromEntries(
      rowsOf(files, 'top_stats.csv')
        .slice(1)
        .map(([metric, value]) => [metric, Number(value)]),
    );
    expect({ visitors: stats.visitors, pageviews: stats.pageviews }).toEqual(PRICING_FILTERED);
  });
});
