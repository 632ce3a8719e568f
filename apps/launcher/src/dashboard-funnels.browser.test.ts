import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { runAxe } from './test-support/dashboard/axe.js';
import { dashboardSuite, signedInState, type StorageState } from './test-support/dashboard/browser-suite.js';
import { chromiumAvailable, openWatchedPage, saveScreenshot, type WatchedPage } from './test-support/dashboard/chromium.js';
import { WINDOW_QUERY, waitForPanels, type InPage } from './test-support/dashboard/panels.js';
import { freshIp } from './test-support/api-client.js';

// The Funnels panel of the signed-in dashboard over seed.ts's data set. Funnel "Checkout":
// page / → page /pricing → custom event Signup. Hand-computed for W (2024-03-04..10):
//   S1 (a) / 10:00 → /pricing 10:05 → Signup 10:10: step 3 (300 s, 300 s)
//   S3 (c) / 09:00 → /pricing 09:10 → Signup 09:20: step 3 (600 s, 600 s)
//   S4 (d) /: step 1.  S5 (e) / → /docs → Signup: step 1 (no /pricing).  S2, S3b, SH1, SH2: no step 1.
//   → 4, 2, 2 visitors; 100 %, 50 %, 50 % of step 1; drop-off 2, 0; median (300 + 600) / 2 = 450 s = 7m 30s both times.
// P (2024-02-26..03-03): S6 (d) / → /pricing: step 2; S7 (a) /: step 1 → 2, 1, 0: changes +100 %, +100 %, none (was 0).
// Funnel "Pricing to docs": page /pricing → page /docs: S1 and S3/S3b reach /pricing, nobody /docs after it → 2, 0.
// Country DE (a, c): 2, 2, 2.
const hasChromium = chromiumAvailable('dashboard funnels');

interface StepText {
  name: string;
  value: string;
  dropoff: string;
  bar: string;
}

describe.skipIf(!hasChromium)('dashboard: the Funnels panel', { timeout: 120_000 }, () => {
  let storageState: StorageState;
  let checkoutId: number;
  const suite = dashboardSuite(
    // a page's first dozen statements queue in chDB (one at a time); on a loaded 2-core machine the
    // last of them may wait past the default 10 s gateway deadline and answer 503
    { name: 'dash_funnels', env: { GRPC_DEADLINE_MS: '60000' } },
    {
      setup: async ({ dash, browser }) => {
        const token = dash.owner.token;
        const goals = await dash.api.request<{ goals: { goal_id: number; event_name: string | null }[] }>('GET', `/api/v1/sites/${dash.siteId}/goals`, {
          token,
        });
        const signup = goals.body.goals.find((g) => g.event_name === 'Signup')!.goal_id;
        const goal = async (page_path: string, display_name: string) => {
          const created = await dash.api.request<{ goal_id: number }>('POST', `/api/v1/sites/${dash.siteId}/goals`, {
            token,
            body: { page_path, display_name },
          });
          expect(created.status).toBe(201);
          return created.body.goal_id;
        };
        const [home, pricing, docs] = [await goal('/', 'Home'), await goal('/pricing', 'Pricing'), await goal('/docs', 'Docs')];
        const funnel = async (name: string, steps: number[]) => {
          const created = await dash.api.request<{ funnel_id: number }>('POST', `/api/v1/sites/${dash.siteId}/funnels`, { token, body: { name, steps } });
          expect(created.status).toBe(201);
          return created.body.funnel_id;
        };
        checkoutId = await funnel('Checkout', [home, pricing, signup]);
        await funnel('Pricing to docs', [pricing, docs]);
        // the events engine loads on its first statements: warm it before a page asks (a cold start on a loaded machine may answer 503)
        for (let attempt = 0; attempt < 10; attempt += 1) {
          const warm = await dash.api.request('POST', '/api/v1/query', {
            token,
            body: { site_id: dash.siteId, metrics: ['visitors'], date_range: ['2024-03-04', '2024-03-10'], dimensions: ['visit:source'] },
          });
          const report = await dash.api.request('GET', `/api/v1/sites/${dash.siteId}/funnels/${checkoutId}/report?date_range=2024-03-04,2024-03-10`, { token });
          if (warm.status === 200 && report.status === 200) break;
          await new Promise((r) => setTimeout(r, 1000));
        }
        storageState = await signedInState(dash, browser, dash.owner.email);
      },
    },
  );

  const open = (scheme: 'light' | 'dark' = 'light') =>
    openWatchedPage(suite.browser, {
      colorScheme: scheme,
      viewport: { width: 1280, height: 1400 },
      extraHTTPHeaders: { 'x-forwarded-for': freshIp() },
      storageState,
    });

  async function openDashboard(query: string, scheme: 'light' | 'dark' = 'light'): Promise<WatchedPage> {
    const watched = await open(scheme);
    await watched.page.goto(`${suite.dash.base}/sites/${suite.dash.siteId}?${query}`);
    await watched.page.locator('[data-panel="funnels"]').waitFor({ timeout: 60_000 });
    // the first report of a cold engine on a shared 2-core machine may take a while
    await waitForPanels(watched.page, 60_000);
    return watched;
  }

  const chartSteps = (page: Page): Promise<StepText[]> =>
    page.locator('[data-panel="funnels"] .funnel-step').evaluateAll((items: InPage[]) =>
      items.map((li) => ({
        name: String(li.querySelector('.funnel-step-name').textContent).trim(),
        value: String(li.querySelector('.funnel-step-value').textContent).replace(/\s+/g, ' ').trim(),
        dropoff: String(li.querySelector('.funnel-dropoff')?.textContent ?? '')
          .replace(/\s+/g, ' ')
          .trim(),
        bar: String(li.querySelector('.funnel-bar').style.width),
      })),
    );

  const tableRows = (page: Page): Promise<string[][]> =>
    page
      .locator('[data-panel="funnels"] table tr')
      .evaluateAll((rows: InPage[]) => rows.map((row) => [...row.cells].map((cell: InPage) => String(cell.textContent).trim())));

  it('draws each step as a bar with its visitors, conversion, drop-off and median time (hand-computed)', async () => {
    const watched = await openDashboard(WINDOW_QUERY);
    const { page } = watched;
    const funnels = page.locator('[data-panel="funnels"]');
    expect(await funnels.getByRole('heading', { name: 'Funnels' }).count()).toBe(1);
    expect(await funnels.getByLabel('Funnel', { exact: true }).inputValue()).toBe(String(checkoutId));
    expect(await chartSteps(page)).toEqual([
      { name: '1. Home', value: '4 visitors · 100%', dropoff: '↓ 2 dropped off (50%) · median 7m 30s to the next step', bar: '100%' },
      { name: '2. Pricing', value: '2 visitors · 50%', dropoff: '↓ 0 dropped off (0%) · median 7m 30s to the next step', bar: '50%' },
      { name: '3. Signup', value: '2 visitors · 50%', dropoff: '', bar: '50%' },
    ]);
    // the same figures as the API answers them
    const api = await suite.dash.api.request<{ steps: { visitors: number }[] }>(
      'GET',
      `/api/v1/sites/${suite.dash.siteId}/funnels/${checkoutId}/report?date_range=2024-03-04,2024-03-10`,
      { token: suite.dash.owner.token },
    );
    expect(api.body.steps.map((s) => s.visitors)).toEqual([4, 2, 2]);
    await saveScreenshot(page, 'funnels-chart-light');
    watched.assertClean();
    await watched.close();
  });

  it('the table view, and the keyboard alone picks another funnel and switches views', async () => {
    const watched = await openDashboard(WINDOW_QUERY);
    const { page } = watched;
    const funnels = page.locator('[data-panel="funnels"]');
    const toggle = funnels.getByRole('button', { name: 'Show as table' });
    await toggle.focus();
    await page.keyboard.press('Enter');
    expect(await toggle.getAttribute('aria-pressed')).toBe('true');
    expect(await tableRows(page)).toEqual([
      ['Step', 'Visitors', 'Conversion', 'From previous step', 'Drop-off', 'Median time to next'],
      ['1. Home', '4', '100%', '100%', '2', '7m 30s'],
      ['2. Pricing', '2', '50%', '50%', '0', '7m 30s'],
      ['3. Signup', '2', '50%', '100%', '–', '–'],
    ]);
    // the select by keyboard: focus it, the next option with the arrow key
    await funnels.getByLabel('Funnel', { exact: true }).focus();
    await page.keyboard.press('ArrowDown');
    await page.waitForFunction(
      () => (globalThis as InPage).document.querySelector('[data-panel="funnels"] tbody tr th')?.textContent.includes('Pricing') === true,
      undefined,
      { polling: 50 },
    );
    await waitForPanels(page);
    expect(await tableRows(page)).toEqual([
      ['Step', 'Visitors', 'Conversion', 'From previous step', 'Drop-off', 'Median time to next'],
      ['1. Pricing', '2', '100%', '100%', '2', '–'],
      ['2. Docs', '0', '0%', '0%', '–', '–'],
    ]);
    // Tab reaches the toggle next; Space turns the chart back on
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => (globalThis as InPage).document.activeElement?.textContent)).toBe('Show as table');
    await page.keyboard.press('Space');
    expect(await chartSteps(page)).toEqual([
      { name: '1. Pricing', value: '2 visitors · 100%', dropoff: '↓ 2 dropped off (100%)', bar: '100%' },
      { name: '2. Docs', value: '0 visitors · 0%', dropoff: '', bar: '0%' },
    ]);
    watched.assertClean();
    await watched.close();
  });

  it('follows the view: compare with the previous period, and a filter', async () => {
    const compared = await openDashboard(`${WINDOW_QUERY}&compare=previous`);
    expect((await chartSteps(compared.page)).map((s) => s.value)).toEqual([
      '4 visitors · 100% +100% (was 2)',
      '2 visitors · 50% +100% (was 1)',
      '2 visitors · 50% (was 0)',
    ]);
    compared.assertClean();
    await compared.close();
    const filtered = await openDashboard(`${WINDOW_QUERY}&f=is,country,DE`);
    expect((await chartSteps(filtered.page)).map((s) => [s.value, s.dropoff])).toEqual([
      ['2 visitors · 100%', '↓ 0 dropped off (0%) · median 7m 30s to the next step'],
      ['2 visitors · 100%', '↓ 0 dropped off (0%) · median 7m 30s to the next step'],
      ['2 visitors · 100%', ''],
    ]);
    filtered.assertClean();
    await filtered.close();
  });

  it('an empty period says so; dark mode passes axe with no serious issue', async () => {
    const empty = await openDashboard('period=custom&from=2023-01-01&to=2023-01-07');
    expect(await empty.page.locator('[data-panel="funnels"]').getByText('Nobody started this funnel in this period.').count()).toBe(1);
    empty.assertClean();
    await empty.close();
    const dark = await openDashboard(WINDOW_QUERY, 'dark');
    const violations = (await runAxe(dark.page)).filter(
      (v) => (v.impact === 'serious' || v.impact === 'critical') && v.nodes.some((n) => JSON.stringify(n).includes('funnel')),
    );
    expect(violations, JSON.stringify(violations, null, 1)).toEqual([]);
    const colours = await dark.page.evaluate(() => {
      const bar = (globalThis as InPage).document.querySelector('[data-panel="funnels"] .funnel-bar');
      const panel = (globalThis as InPage).document.querySelector('[data-panel="funnels"]');
      return [(globalThis as InPage).getComputedStyle(bar).backgroundColor, (globalThis as InPage).getComputedStyle(panel).backgroundColor];
    });
    // the dark theme's --accent (#818cf8) and --surface (#111827)
    expect(colours).toEqual(['rgb(129, 140, 248)', 'rgb(17, 24, 39)']);
    await saveScreenshot(dark.page, 'funnels-dark');
    dark.assertClean();
    await dark.close();
  });
});
