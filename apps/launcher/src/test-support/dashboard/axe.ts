import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import type { InPage } from './panels.js';

/**
 * axe-core (pinned 4.14.1) injected as script text evaluated through the DevTools
 * protocol, which the page's CSP does not govern (`page.addScriptTag({ content })` adds
 * an inline <script> that `script-src 'self'` rightly refuses, and that refusal would be
 * reported as a CSP violation), then run over the whole document for the WCAG 2.x A/AA
 * rules and best practices.
 */
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

export async function runAxe(page: Page): Promise<AxeViolation[]> {
  if (!(await page.evaluate(() => typeof (globalThis as InPage).axe === 'object'))) await page.evaluate(AXE_SOURCE);
  return page.evaluate(
    async (tags: string[]) => {
      const run = await (globalThis as InPage).axe.run((globalThis as InPage).document, {
        runOnly: { type: 'tag', values: tags },
        resultTypes: ['violations'],
      });
      return (run.violations as InPage[]).map((v) => ({
        id: String(v.id),
        impact: v.impact as string | null,
        help: String(v.help),
        nodes: (v.nodes as InPage[]).slice(0, 5).map((n) => (n.target as string[]).join(' ')),
      }));
    },
    ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'],
  );
}

/** The serious and critical ones, the bar issue 31 sets. */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  return (await runAxe(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
}
