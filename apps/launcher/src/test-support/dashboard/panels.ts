import type { Locator, Page } from 'playwright-core';
import { WINDOW } from './seed.js';

/**
 * The dashboard as a person sees it, through the contract's test hooks:
 * `data-panel` on each panel's root, `data-loading="true"` on a panel (or a part of
 * it) while its data is in flight; everything else by role, name and label.
 */
export const PANELS = ['top-stats', 'graph', 'sources', 'pages', 'locations', 'devices', 'goals'] as const;
export type PanelName = (typeof PANELS)[number];

/** The custom range over seed.ts's window W. */
export const WINDOW_QUERY = `period=custom&from=${WINDOW.from}&to=${WINDOW.to}`;

export const panel = (page: Page, name: PanelName): Locator => page.locator(`[data-panel="${name}"]`);

/**
 * Functions run in the page are passed as functions, never as strings: Playwright turns a
 * string predicate into `new Function`, which the page's CSP (no 'unsafe-eval') refuses.
 * The repository compiles without the DOM library, hence the loose `any` of the page side.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type InPage = any;

export const allPanelsLoaded = (want: readonly string[]): boolean => {
  const doc = (globalThis as InPage).document;
  return (
    want.every((name) => doc.querySelector(`[data-panel="${name}"]`)) &&
    !doc.querySelector('[data-panel][data-loading="true"], [data-panel] [data-loading="true"]')
  );
};

const anyLoading = (): boolean => Boolean((globalThis as InPage).document.querySelector('[data-loading="true"]'));

/** Resolves once every panel is on the page and nothing in one is loading. */
export async function waitForPanels(page: Page, timeoutMs = 20_000): Promise<void> {
  // an action re-renders first and marks panels loading a moment later: give it that moment
  await page.waitForFunction(anyLoading, undefined, { timeout: 250, polling: 'raf' }).catch(() => undefined);
  await page.waitForFunction(allPanelsLoaded, PANELS, { timeout: timeoutMs, polling: 50 });
}

/** Text as shown: whitespace runs as one space, trimmed (CR, LF and NUL are kept: they must stay inert text). */
const squeeze = (text: string) => text.replace(/[ \t\n]+/g, ' ').trim();

export interface ShownRow {
  /** the row's label as text (decorations marked aria-hidden and out-links left out) */
  label: string;
  /** the last cell's text */
  value: string;
}

/** The rows of the panel's open tab: label and value, as shown. */
export async function breakdownRows(page: Page, name: PanelName): Promise<ShownRow[]> {
  const rows = panel(page, name).getByRole('tabpanel').locator('tbody tr');
  return rows.evaluateAll((elements: InPage[]) =>
    elements.map((row) => {
      const cells = [...row.cells] as InPage[];
      const first = cells[0].cloneNode(true);
      for (const hidden of first.querySelectorAll('[aria-hidden="true"], a')) hidden.remove();
      return { label: String(first.textContent).trim(), value: String(cells[cells.length - 1].textContent).trim() };
    }),
  );
}

/** Picks a tab of a panel by its accessible name ("Countries", "Browsers", "Entry pages"…). */
export async function openTab(page: Page, name: PanelName, tab: string): Promise<void> {
  await panel(page, name).getByRole('tab', { name: tab, exact: true }).click();
  await waitForPanels(page);
}

/** A top stat's button ("Visitors", "Bounce rate"…): its text is label, value, change. */
export const stat = (page: Page, label: string): Locator => panel(page, 'top-stats').getByRole('button', { name: new RegExp(`^${label}\\b`) });

/** The stat's parts (label, value, change, previous value) as text, one space apart — not innerText, which a CSS text-transform changes. */
export async function statText(page: Page, label: string): Promise<string> {
  return squeeze(await stat(page, label).evaluate((button: InPage) => ([...button.children] as InPage[]).map((part) => String(part.textContent)).join(' ')));
}

/** The graph's data table ("Show as table"): [bucket, value] per row. */
export async function graphTable(page: Page): Promise<string[][]> {
  const graph = panel(page, 'graph');
  const toggle = graph.getByRole('button', { name: 'Show as table' });
  if ((await toggle.getAttribute('aria-pressed')) !== 'true') await toggle.click();
  return graph
    .locator('table tbody tr')
    .evaluateAll((rows: InPage[]) => rows.map((row) => ([...row.cells] as InPage[]).map((cell) => String(cell.textContent).trim())));
}

/** The current URL's query as decoded key/value pairs (repeated keys kept in order). */
export function urlState(page: Page): Array<[string, string]> {
  return [...new URL(page.url()).searchParams.entries()];
}

/**
 * A metric as the page writes it — restated here from the spec of the page (issue 31,
 * format.ts's rules) rather than imported, so a formatting slip shows as a failure.
 */
export function shown(metric: string, value: number | null | undefined): string {
  if (value === null || value === undefined) return '–';
  if (['bounce_rate', 'exit_rate', 'conversion_rate', 'scroll_depth'].includes(metric)) return `${Number.isInteger(value) ? value : value.toFixed(1)}%`;
  if (['visit_duration', 'time_on_page', 'engagement_time'].includes(metric)) {
    const total = Math.round(value);
    return total < 60 ? `${total}s` : `${Math.floor(total / 60)}m ${String(total % 60).padStart(2, '0')}s`;
  }
  if (metric === 'views_per_visit') return value.toFixed(2);
  return String(Math.round(value));
}
