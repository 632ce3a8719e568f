import type { Browser } from 'playwright-core';
import { browserSuite, type BrowserSuite } from '../dashboard/browser-suite.js';
import { startHostSite, type HostSite } from './host-page.js';
import { startWidgetBackend, type WidgetBackend } from './widget-backend.js';

export interface WidgetSuite {
  /** the launcher holding the seed's data (widget-backend.ts) */
  readonly backend: WidgetBackend;
  /** the host site of another origin the widgets are embedded in */
  readonly host: HostSite;
  readonly browser: Browser;
}

/**
 * A browser suite over one widget backend and its host site (browserSuite: one
 * beforeAll/afterAll pair); `setup` runs once both and Chromium are up.
 */
export function widgetSuite(name: string, setup?: (suite: WidgetSuite) => Promise<void>): WidgetSuite {
  const inner: BrowserSuite<{ backend: WidgetBackend; host: HostSite }> = browserSuite({
    start: async () => {
      const backend = await startWidgetBackend(name);
      try {
        return { backend, host: await startHostSite(backend.base) };
      } catch (error) {
        await backend.stop();
        throw error;
      }
    },
    stop: async ({ backend, host }) => {
      await host.stop();
      await backend.stop();
    },
    ...(setup ? { setup: () => setup(suite) } : {}),
  });
  const suite: WidgetSuite = {
    get backend() {
      return inner.server.backend;
    },
    get host() {
      return inner.server.host;
    },
    get browser() {
      return inner.browser;
    },
  };
  return suite;
}
