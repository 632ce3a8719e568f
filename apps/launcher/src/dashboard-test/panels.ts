import type { Locator, Page } from 'playwright-core';

/**
 * The dashboard as a person sees it, through the contract's test hooks:
 * `data-panel` on each panel's root, `data-loading="true"` while its data is in flight.
 */
export const PANELS = ['top-stats', 'graph', 'sources', 'pages', 'locations', 'devices', 'goals'] as const;
export type PanelName = (typeof PANELS)[number];

export const panel = (page: Page, name: PanelName): Locator => page.locator(`[data-panel="${name}"]`);

/** Resolves once every panel is on the page and none is loading (the bench's "all panels shown"). */
export async function waitForPanels(page: Page, timeoutMs = 20_000): Promise<void> {
  await page.waitForFunction(
    `(() => { const want = ${JSON.stringify(PANELS)}; return want.every((name) => document.querySelector('[data-panel="' + name + '"]')) && !document.querySelector('[data-panel][data-loading="true"]'); })()`,
    undefined,
    { timeout: timeoutMs, polling: 50 },
  );
}

/** The rows of a panel's current list, as visible text per row (one array per row). */
export async function panelRows(page: Page, name: PanelName): Promise<string[]> {
  const rows = panel(page, name).getByRole('row');
  const count = await rows.count();
  const texts: string[] = [];
  for (let i = 0; i < count; i += 1) texts.push(((await rows.nth(i).innerText()) ?? '').replace(/\s+/g, ' ').trim());
  return texts;
}

/** Picks a tab of a panel by its accessible name ("Countries", "Browsers", "Entry pages"…). */
export async function openTab(page: Page, name: PanelName, tab: string | RegExp): Promise<void> {
  await panel(page, name).getByRole('tab', { name: tab }).click();
  await waitForPanels(page);
}

/** The current URL's query as decoded key/value pairs (repeated keys kept in order). */
export function urlState(page: Page): Array<[string, string]> {
  return [...new URL(page.url()).searchParams.entries()];
}
