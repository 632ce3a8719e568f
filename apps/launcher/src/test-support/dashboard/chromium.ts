import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';
import { backendsRequired } from '@sightline/testkit';

/**
 * Debian's Chromium driven by playwright-core, as tracker.browser.test.ts does. Missing
 * Chromium skips a suite with a printed reason, and fails it under
 * SIGHTLINE_REQUIRE_BACKENDS=1 (CI must never go green by skipping the browser).
 */
export const CHROMIUM = '/usr/bin/chromium';

export function chromiumAvailable(suite: string): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (backendsRequired())
    throw new Error(`${CHROMIUM} is missing and SIGHTLINE_REQUIRE_BACKENDS=1 makes the browser test "${suite}" mandatory (apt-get install chromium)`);
  console.warn(`[skip] ${suite}: ${CHROMIUM} not installed (apt-get install chromium)`);
  return false;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/**
 * Runs before any of the page's own scripts: reports CSP violations to the console
 * (where the watcher below collects them), and sets a trap on `window.__pwned`,
 * which every hostile value in seed.ts tries to set.
 */
const INIT_SCRIPT = `(() => {
  document.addEventListener('securitypolicyviolation', (e) => {
    console.error('CSP violation: ' + e.violatedDirective + ' blocked ' + (e.blockedURI || '(inline)') + ' at ' + e.sourceFile + ':' + e.lineNumber);
  });
  Object.defineProperty(window, '__pwned', {
    configurable: false,
    get() { return undefined; },
    set(value) { console.error('PWNED: window.__pwned was set to ' + String(value)); },
  });
})();`;

/** Signed out, the page's first call (GET /web/session) answers 401 as it should, and Chromium logs every 4xx. */
export const SIGNED_OUT_PROBE = /status of 401 .*\/web\/session\)$/;

/** A page whose console errors, uncaught exceptions, CSP violations and dialogs are kept. */
export interface WatchedPage {
  page: Page;
  context: BrowserContext;
  /** console errors (CSP violations and the __pwned trap among them) and uncaught exceptions */
  problems: string[];
  /** alert/confirm/prompt messages (each dismissed) */
  dialogs: string[];
  /** Fails the test with everything collected, less messages matching `allow`. */
  assertClean(allow?: RegExp[]): void;
  close(): Promise<void>;
}

export async function openWatchedPage(browser: Browser, options: BrowserContextOptions = {}): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...options });
  await context.addInitScript({ content: INIT_SCRIPT });
  const page = await context.newPage();
  const problems: string[] = [];
  const dialogs: string[] = [];
  page.on('console', (message) => {
    // a failed load's message names no URL; its location does
    if (message.type() === 'error') problems.push(`console.error: ${message.text()} (${message.location().url})`);
  });
  page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
  page.on('dialog', (dialog) => {
    dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    void dialog.dismiss().catch(() => {});
  });
  return {
    page,
    context,
    problems,
    dialogs,
    assertClean(allow = []) {
      const left = problems.filter((p) => !allow.some((a) => a.test(p)));
      if (left.length > 0 || dialogs.length > 0) throw new Error(`the page reported problems:\n${[...left, ...dialogs.map((d) => `dialog ${d}`)].join('\n')}`);
    },
    close: () => context.close(),
  };
}

/** Where screenshots go: test-artifacts/dashboard/ at the repository root (git-ignored). */
export const ARTIFACTS_DIR = path.resolve(import.meta.dirname, '../../../../../test-artifacts/dashboard');

export async function saveScreenshot(page: Page, name: string): Promise<string> {
  await mkdir(ARTIFACTS_DIR, { recursive: true });
  const file = path.join(ARTIFACTS_DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}
