import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

/**
 * axe-core (pinned 4.14.1) injected as script text through the DevTools protocol,
 * which the page's CSP does not govern (`page.addScriptTag({ content })` would add an
 * inline <script> that `script-src 'self'` rightly refuses), then run over the whole
 * document for the WCAG 2.x A/AA rules.
 */
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

export async function runAxe(page: Page): Promise<AxeViolation[]> {
  if (!(await page.evaluate('typeof window.axe === "object"'))) await page.evaluate(AXE_SOURCE);
  const result = (await page.evaluate(`window.axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] }, resultTypes: ['violations'] })
    .then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 5).map((n) => n.target.join(' ')) }))))`)) as AxeViolation[];
  return result;
}

/** The serious and critical ones, the bar issue 31 sets. */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  return (await runAxe(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
}
