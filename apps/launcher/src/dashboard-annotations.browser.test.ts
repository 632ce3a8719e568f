import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { seriousAxeViolations } from './test-support/dashboard/axe.js';
import { dashboardSuite, signIn } from './test-support/dashboard/browser-suite.js';
import { chromiumAvailable, openWatchedPage, saveScreenshot, SIGNED_OUT_PROBE, type WatchedPage } from './test-support/dashboard/chromium.js';
import { uniqueEmail } from './test-support/dashboard/dashboard-server.js';
import { WINDOW_QUERY, waitForPanels, type InPage } from './test-support/dashboard/panels.js';
import { parseCsv, readZip } from './test-support/dashboard/read-zip.js';
import { freshIp, register } from './test-support/api-client.js';

// Annotations on the dashboard's main graph: markers at their bucket, tooltips by
// keyboard, the list under the graph, the owner's add/edit/delete dialog, a member's
// read-only view, the CSV export and hostile text kept inert. The site is in UTC; the
// window is 2024-03-04..2024-03-10 by day: seven buckets, index 0 = 2024-03-04.
const hasChromium = chromiumAvailable('dashboard annotations');
// the first page of the file asks chDB cold; on 2 cores shared with other suites that can pass 20 s
const PANELS_TIMEOUT_MS = 60_000;

const HOSTILE_NOTE = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>';
const FORMULA_NOTE = '=HYPERLINK("https://evil.example","click")';
const NOTES = [
  { date: '2024-03-05', text: 'Launched pricing page' },
  // 23:30 at UTC-2 on the 7th is 01:30 UTC on the 8th: the site (UTC) puts it in the 8th's bucket
  { datetime: '2024-03-07T23:30:00-02:00', text: 'Outage, "db", 20 min' },
  { date: '2024-03-09', text: HOSTILE_NOTE },
  { date: '2024-03-09', text: FORMULA_NOTE },
  // outside the window: never shown
  { date: '2024-03-20', text: 'Later' },
];

describe.skipIf(!hasChromium)('annotations on the dashboard', { timeout: 120_000 }, () => {
  let memberEmail: string;
  const suite = dashboardSuite(
    { name: 'dash_notes' },
    {
      setup: async ({ dash }) => {
        for (const note of NOTES) {
          const created = await dash.api.request('POST', `/api/v1/sites/${dash.siteId}/annotations`, { token: dash.owner.token, body: note });
          expect(created.status, JSON.stringify(created.body)).toBe(201);
        }
        memberEmail = uniqueEmail('member');
        await register(dash.server.api.withIp(freshIp()), dash.server.smtp, memberEmail);
        const added = await dash.api.request('POST', `/api/v1/sites/${dash.siteId}/members`, {
          token: dash.owner.token,
          body: { email: memberEmail, role: 'member' },
        });
        expect(added.status).toBe(201);
      },
    },
  );

  async function signedIn(email: string): Promise<WatchedPage> {
    const watched = await openWatchedPage(suite.browser, { extraHTTPHeaders: { 'x-forwarded-for': freshIp() } });
    const { page } = watched;
    await signIn(suite.dash, page, email);
    await page.goto(`${suite.dash.base}/sites/${suite.dash.siteId}?${WINDOW_QUERY}`);
    await waitForPanels(page, PANELS_TIMEOUT_MS);
    return watched;
  }

  /** Each marker's bucket and its x as a share of the plotting area's width. */
  const markers = (page: Page) =>
    page.evaluate((): Array<{ bucket: number; x: number; count: string }> => {
      const doc = (globalThis as InPage).document;
      const over = doc.querySelector('[data-panel="graph"] .u-over').getBoundingClientRect();
      return [...doc.querySelectorAll('[data-panel="graph"] .note-marker')].map((m: InPage) => ({
        bucket: Number(m.dataset.bucket),
        x: (m.getBoundingClientRect().left - over.left) / over.width,
        count: m.querySelector('button')!.textContent,
      }));
    });
  const listed = (page: Page) => page.locator('.notes-list li .note-text').allInnerTexts();

  it('the shared page puts each note at its bucket, shows them by keyboard, and keeps hostile text inert', async () => {
    const watched = await openWatchedPage(suite.browser, { extraHTTPHeaders: { 'x-forwarded-for': freshIp() } });
    const { page } = watched;
    await page.goto(`${suite.dash.base}/share/${suite.dash.hash}?${WINDOW_QUERY}`);
    await waitForPanels(page, PANELS_TIMEOUT_MS);
    await expect.poll(() => markers(page).then((m) => m.map((x) => x.bucket))).toEqual([1, 4, 5]);
    // seven buckets spread over the plotting area: bucket i sits at i/6 of its width
    for (const marker of await markers(page)) expect(Math.abs(marker.x - marker.bucket / 6), `bucket ${marker.bucket}`).toBeLessThan(0.01);
    expect((await markers(page)).map((m) => m.count)).toEqual(['1', '1', '2']);
    expect(await listed(page)).toEqual(['Launched pricing page', 'Outage, "db", 20 min', HOSTILE_NOTE, FORMULA_NOTE]);
    expect(await page.locator('.notes-list li .note-when').allInnerTexts()).toEqual(['2024-03-05', '2024-03-08 01:30', '2024-03-09', '2024-03-09']);
    // read-only and authorless
    expect(await page.getByRole('button', { name: 'Add note' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /^Edit/ }).count()).toBe(0);
    expect(await page.locator('.note-author').count()).toBe(0);

    // keyboard: Tab from "Show as table" reaches the first marker; its tooltip opens, Escape closes it
    await page.getByRole('button', { name: 'Show as table' }).focus();
    await page.keyboard.press('Tab');
    const first = page.getByRole('button', { name: '1 note on 2024-03-05' });
    await expect.poll(() => first.evaluate((el: InPage) => el === (globalThis as InPage).document.activeElement)).toBe(true);
    const tip = page.getByRole('tooltip').filter({ hasText: 'Launched pricing page' });
    await expect.poll(() => tip.isVisible()).toBe(true);
    expect(await first.getAttribute('aria-describedby')).toBe(await tip.getAttribute('id'));
    await page.keyboard.press('Escape');
    await expect.poll(() => tip.isVisible()).toBe(false);
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    const hostile = page.getByRole('tooltip').filter({ hasText: 'onerror' });
    await expect.poll(() => hostile.isVisible()).toBe(true);
    expect((await hostile.innerText()).replace(/\s+/g, ' ')).toContain(`2024-03-09 ${HOSTILE_NOTE}`);
    await saveScreenshot(page, 'annotations-share-tooltip');
    // markers, an open tooltip and the list pass axe (WCAG A/AA, serious and critical)
    expect(await seriousAxeViolations(page)).toEqual([]);
    // the markup is text: no element came of it, nothing ran (the page's trap reports a write to __pwned)
    expect(await page.locator('[data-panel="graph"] img, .notes-list img, [data-panel="graph"] script').count()).toBe(0);
    watched.assertClean();
    await watched.close();
  });

  it('the export holds annotations.csv with the window notes, a formula defused', async () => {
    const watched = await openWatchedPage(suite.browser, { acceptDownloads: true, extraHTTPHeaders: { 'x-forwarded-for': freshIp() } });
    const { page } = watched;
    await page.goto(`${suite.dash.base}/share/${suite.dash.hash}?${WINDOW_QUERY}`);
    await waitForPanels(page, PANELS_TIMEOUT_MS);
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV' }).click();
    const files = readZip(await readFile((await (await download).path())!));
    const rows = parseCsv(files.get('annotations.csv')!.toString('utf8'));
    expect(rows).toEqual([
      ['local_date', 'local_time', 'date', 'datetime', 'text', 'author'],
      ['2024-03-05', '', '2024-03-05', '', 'Launched pricing page', ''],
      ['2024-03-08', '01:30', '', '2024-03-08T01:30:00.000Z', 'Outage, "db", 20 min', ''],
      ['2024-03-09', '', '2024-03-09', '', HOSTILE_NOTE, ''],
      ['2024-03-09', '', '2024-03-09', '', `'${FORMULA_NOTE}`, ''],
    ]);
    watched.assertClean();
    await watched.close();
  });

  it('the owner adds, edits and deletes a note from the dashboard', async () => {
    const watched = await signedIn(suite.dash.owner.email);
    const { page } = watched;
    await expect.poll(() => listed(page)).toHaveLength(4);
    expect(await page.locator('.note-author').first().innerText()).toContain(suite.dash.owner.email);
    await page.getByRole('button', { name: 'Add note' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add a note' });
    await dialog.getByLabel('Day').fill('2024-03-06');
    await dialog.getByLabel(/^Time/).fill('09:15');
    await dialog.getByLabel('Note').fill('  Added in the browser  ');
    await saveScreenshot(page, 'annotations-add-dialog');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => listed(page)).toEqual(['Launched pricing page', 'Added in the browser', 'Outage, "db", 20 min', HOSTILE_NOTE, FORMULA_NOTE]);
    await expect.poll(() => markers(page).then((m) => m.map((x) => x.bucket))).toEqual([1, 2, 4, 5]);
    const stored = await suite.dash.api.request<{ annotations: Array<{ annotation_id: number; datetime: string; text: string; author: string }> }>(
      'GET',
      `/api/v1/sites/${suite.dash.siteId}/annotations?from=2024-03-06&to=2024-03-06`,
      { token: suite.dash.owner.token },
    );
    expect(stored.body.annotations).toMatchObject([{ datetime: '2024-03-06T09:15:00.000Z', text: 'Added in the browser', author: suite.dash.owner.email }]);

    await page.getByRole('button', { name: 'Edit the note of 2024-03-06 09:15: Added in the browser' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit note' });
    expect(await edit.getByLabel('Day').inputValue()).toBe('2024-03-06');
    expect(await edit.getByLabel(/^Time/).inputValue()).toBe('09:15');
    await edit.getByLabel(/^Time/).fill('');
    await edit.getByLabel('Note').fill('Edited in the browser');
    await edit.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => listed(page)).toContain('Edited in the browser');
    expect(await page.locator('.notes-list li', { hasText: 'Edited in the browser' }).locator('.note-when').innerText()).toBe('2024-03-06');

    // a refusal is shown in the dialog, and nothing changes
    await page.getByRole('button', { name: 'Edit the note of 2024-03-06: Edited in the browser' }).click();
    const again = page.getByRole('dialog', { name: 'Edit note' });
    await again.getByLabel('Note').evaluate((el: InPage) => el.removeAttribute('maxlength'));
    await again.getByLabel('Note').fill('x'.repeat(281));
    await again.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => again.getByRole('alert').innerText()).toMatch(/280/);
    await again.getByRole('button', { name: 'Delete' }).click();
    await expect.poll(() => listed(page)).toEqual(['Launched pricing page', 'Outage, "db", 20 min', HOSTILE_NOTE, FORMULA_NOTE]);
    await expect.poll(() => markers(page).then((m) => m.map((x) => x.bucket))).toEqual([1, 4, 5]);
    const audit = await suite.dash.api.request<{ entries: Array<{ action: string }> }>('GET', `/api/v1/sites/${suite.dash.siteId}/audit?limit=3`, {
      token: suite.dash.owner.token,
    });
    expect(audit.body.entries.map((e) => e.action)).toEqual(['annotation.delete', 'annotation.update', 'annotation.create']);
    watched.assertClean([SIGNED_OUT_PROBE, /status of 400 .*\/annotations\//]);
    await watched.close();
  });

  it('a member reads the notes and gets no way to change them', async () => {
    const watched = await signedIn(memberEmail);
    const { page } = watched;
    await expect.poll(() => listed(page)).toEqual(['Launched pricing page', 'Outage, "db", 20 min', HOSTILE_NOTE, FORMULA_NOTE]);
    await expect.poll(() => markers(page).then((m) => m.map((x) => x.bucket))).toEqual([1, 4, 5]);
    expect(await page.getByRole('button', { name: 'Add note' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /^Edit/ }).count()).toBe(0);
    await saveScreenshot(page, 'annotations-member');
    watched.assertClean([SIGNED_OUT_PROBE]);
    await watched.close();
  });
});
