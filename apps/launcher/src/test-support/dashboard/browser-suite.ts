import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { codeFromMail, freshIp } from '../api-client.js';
import { launchChromium, openWatchedPage, type WatchedPage } from './chromium.js';
import { startDashboardServer, type DashboardServer, type DashboardServerOptions } from './dashboard-server.js';
import { waitForPanels, WINDOW_QUERY } from './panels.js';

/**
 * The setup every browser suite shares, registered as one beforeAll/afterAll pair: start
 * the servers, launch Chromium, optionally open one watched page (and go to a URL), then the
 * suite's own `setup`; afterwards close the browser and stop the servers (in that order).
 * The fields are read in the tests, after beforeAll has run: reading one earlier throws.
 */
export interface BrowserSuite<S> {
  readonly server: S;
  readonly browser: Browser;
  /** the page opened in beforeAll, with `page` among the options */
  readonly watched: WatchedPage;
  readonly page: Page;
}

export interface BrowserSuiteOptions<S> {
  start(): Promise<S>;
  stop(server: S): Promise<void>;
  /** open one watched page in beforeAll with these context options (`{}`: the defaults) */
  page?: BrowserContextOptions;
  /** where that page goes, and what to wait for once there */
  goto?: { url(server: S): string; ready?(page: Page): Promise<void> };
  /** the suite's own setup, once the browser is up */
  setup?(suite: BrowserSuite<S>): Promise<void>;
}

const SETUP_TIMEOUT_MS = 120_000;

export function browserSuite<S>(options: BrowserSuiteOptions<S>): BrowserSuite<S> {
  const state: { server?: S; browser?: Browser; watched?: WatchedPage } = {};
  const read = <K extends keyof typeof state>(key: K): NonNullable<(typeof state)[K]> => {
    const value = state[key];
    if (value === undefined) throw new Error(`browserSuite: "${key}" is not set (read before beforeAll, or no page was asked for)`);
    return value!;
  };
  const suite: BrowserSuite<S> = {
    get server() {
      return read('server');
    },
    get browser() {
      return read('browser');
    },
    get watched() {
      return read('watched');
    },
    get page() {
      return read('watched').page;
    },
  };

  beforeAll(async () => {
    state.server = await options.start();
    state.browser = await launchChromium();
    if (options.page) {
      state.watched = await openWatchedPage(state.browser, options.page);
      if (options.goto) {
        await state.watched.page.goto(options.goto.url(state.server));
        await options.goto.ready?.(state.watched.page);
      }
    }
    await options.setup?.(suite);
  }, SETUP_TIMEOUT_MS);

  afterAll(async () => {
    await state.browser?.close();
    if (state.server !== undefined) await options.stop(state.server);
  });

  return suite;
}

export interface DashboardSuite extends Omit<BrowserSuite<DashboardServer>, 'server'> {
  /** the launcher with the seeded site (dashboard-server.ts) */
  readonly dash: DashboardServer;
}

export interface DashboardSuiteOptions {
  /** open one watched page in beforeAll with these context options (`{}`: the defaults) */
  page?: BrowserContextOptions;
  /** that page opens the share page over the seed's window and waits for the panels */
  sharePage?: boolean;
  setup?(suite: DashboardSuite): Promise<void>;
}

/** A browser suite over one dashboard launcher (startDashboardServer). */
export function dashboardSuite(server: DashboardServerOptions, options: DashboardSuiteOptions = {}): DashboardSuite {
  const inner = browserSuite<DashboardServer>({
    start: () => startDashboardServer(server),
    stop: (dash) => dash.stop(),
    ...(options.page ? { page: options.page } : {}),
    ...(options.sharePage ? { goto: { url: (dash) => `${dash.base}/share/${dash.hash}?${WINDOW_QUERY}`, ready: (page) => waitForPanels(page) } } : {}),
    ...(options.setup ? { setup: () => options.setup!(suite) } : {}),
  });
  const suite: DashboardSuite = {
    get dash() {
      return inner.server;
    },
    get browser() {
      return inner.browser;
    },
    get watched() {
      return inner.watched;
    },
    get page() {
      return inner.page;
    },
  };
  return suite;
}

/** Signs `email` in on `page` through the e-mailed code, up to the list of sites. */
export async function signIn(dash: DashboardServer, page: Page, email: string): Promise<void> {
  const before = dash.server.smtp.received.length;
  await page.goto(`${dash.base}/`);
  await page.getByLabel('Email').fill(email);
  await page.getByRole('button', { name: 'Send code' }).click();
  await page.getByLabel('Code').fill(await codeFromMail(dash.server.smtp, email, before));
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('heading', { name: 'Your sites' }).waitFor();
}

export type StorageState = Awaited<ReturnType<BrowserContext['storageState']>>;

/** The browser state (session cookie) of `email` signed in, from a page of its own client address. */
export async function signedInState(dash: DashboardServer, browser: Browser, email: string): Promise<StorageState> {
  // each browser its own client address: the sign-in limits count per IP
  const watched = await openWatchedPage(browser, { extraHTTPHeaders: { 'x-forwarded-for': freshIp() } });
  await signIn(dash, watched.page, email);
  const state = await watched.context.storageState();
  await watched.close();
  return state;
}
