import { describe, expect, it } from 'vitest';
import { dashboardSuite, signIn } from './test-support/dashboard/browser-suite.js';
import { chromiumAvailable, openWatchedPage, SIGNED_OUT_PROBE, type WatchedPage } from './test-support/dashboard/chromium.js';
import { uniqueEmail } from './test-support/dashboard/dashboard-server.js';
import { statText, WINDOW_QUERY, waitForPanels } from './test-support/dashboard/panels.js';
import { SITE_HOST, TOTALS } from './test-support/dashboard/seed.js';
import { freshIp, register, type ApiClient } from './test-support/api-client.js';

// Site roles on the signed-in dashboard: a member sees the sites they belong to and no
// other, and loses a site the moment the owner removes them.
const hasChromium = chromiumAvailable('dashboard members');

// a browser test waits on re-renders and the server; CI runs the suites side by side on 2 cores
describe.skipIf(!hasChromium)('a member on the dashboard', { timeout: 120_000 }, () => {
  let memberEmail: string;
  let memberAccountId: number;
  let strangerSiteId: number;
  let watched: WatchedPage;
  const suite = dashboardSuite(
    { name: 'dash_members' },
    {
      setup: async ({ dash, browser }) => {
        // the member: an account of its own; a stranger with a site the member is no part of
        const api: ApiClient = dash.server.api.withIp(freshIp());
        memberEmail = uniqueEmail('member');
        await register(api, dash.server.smtp, memberEmail);
        const added = await dash.api.request<{ account_id: number }>('POST', `/api/v1/sites/${dash.siteId}/members`, {
          token: dash.owner.token,
          body: { email: memberEmail, role: 'member' },
        });
        expect(added.status).toBe(201);
        memberAccountId = added.body.account_id;
        const stranger = await register(api, dash.server.smtp, uniqueEmail('stranger'));
        const site = await api.request<{ site_id: number }>('POST', '/api/v1/sites', {
          token: stranger.token,
          body: { url: 'https://stranger.sightline-e2e.net' },
        });
        strangerSiteId = site.body.site_id;
        watched = await openWatchedPage(browser, { extraHTTPHeaders: { 'x-forwarded-for': freshIp() } });
        await signIn(dash, watched.page, memberEmail);
      },
    },
  );

  it('lists only the sites the member belongs to, with the role', async () => {
    const { page } = watched;
    const list = page.getByRole('main').getByRole('listitem');
    await expect.poll(() => list.count()).toBe(1);
    expect((await list.first().innerText()).replace(/\s+/g, ' ')).toBe(`${SITE_HOST} member`);
    expect(await page.getByRole('link', { name: /stranger/ }).count()).toBe(0);
  });

  it('reads the site it belongs to, and another site is "not found"', async () => {
    const { page } = watched;
    await page.goto(`${suite.dash.base}/sites/${suite.dash.siteId}?${WINDOW_QUERY}`);
    await waitForPanels(page);
    await expect.poll(() => statText(page, 'Visitors')).toBe(`Visitors ${TOTALS.visitors}`);
    await page.goto(`${suite.dash.base}/sites/${strangerSiteId}`);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).innerText()).toBe('Site not found');
    watched.assertClean([SIGNED_OUT_PROBE, /status of 404 .*\/api\/v1\//]);
  });

  it('removed by the owner, the member loses the site at once: the page and its data calls', async () => {
    const { page, context } = watched;
    await page.goto(`${suite.dash.base}/sites/${suite.dash.siteId}?${WINDOW_QUERY}`);
    await waitForPanels(page);
    const removed = await suite.dash.api.request('DELETE', `/api/v1/sites/${suite.dash.siteId}/members/${memberAccountId}`, { token: suite.dash.owner.token });
    expect(removed.status).toBe(204);
    // the very next data call with the member's session is refused, as for a site that does not exist
    const cookie = (await context.cookies(suite.dash.base)).find((c) => c.name === 'sightline_session')!.value;
    const csrf = (
      (await (await fetch(`${suite.dash.base}/web/session`, { headers: { cookie: `sightline_session=${cookie}` } })).json()) as { csrf_token: string }
    ).csrf_token;
    const query = await fetch(`${suite.dash.base}/api/v1/query`, {
      method: 'POST',
      headers: { cookie: `sightline_session=${cookie}`, 'x-csrf-token': csrf, 'content-type': 'application/json' },
      body: JSON.stringify({ site_id: suite.dash.siteId, metrics: ['visitors'], date_range: '30d' }),
    });
    expect(query.status).toBe(404);
    expect(((await query.json()) as { code: string }).code).toBe('unknown_site');
    await page.reload();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).innerText()).toBe('Site not found');
    await page.goto(`${suite.dash.base}/`);
    await page.getByRole('heading', { name: 'Your sites' }).waitFor();
    await expect.poll(() => page.getByText('No sites yet', { exact: false }).count()).toBe(1);
    watched.assertClean([SIGNED_OUT_PROBE, /status of 404 .*\/api\/v1\//]);
  });
});
